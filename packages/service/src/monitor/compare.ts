// A page against its baseline: same, changed (with a unified diff of the markdown) or new.
import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import { withoutFragment } from 'webdata-contract';
import type { BaselinePage, PageStatus } from './types.js';

/** Markdown as compared: line endings, trailing spaces and runs of blank lines do not count. */
export function normalizeMarkdown(markdown: string): string {
  return markdown.replace(/\r\n?/g, '\n').split('\n').map((l) => l.replace(/[ \t]+$/, '')).join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

export function markdownHash(markdown: string): string {
  return createHash('sha256').update(normalizeMarkdown(markdown)).digest('hex');
}

/** The URL a page is tracked by: no fragment, otherwise as given. */
export const pageKey = withoutFragment;

export interface Comparison {
  status: Extract<PageStatus, 'same' | 'changed' | 'new'>;
  diffText: string | null;
}

export function compareWithBaseline(url: string, markdown: string, before: BaselinePage | undefined): Comparison {
  if (!before) return { status: 'new', diffText: null };
  if (before.hash === markdownHash(markdown)) return { status: 'same', diffText: null };
  const diffText = createTwoFilesPatch(url, url, `${normalizeMarkdown(before.markdown)}\n`, `${normalizeMarkdown(markdown)}\n`, 'previous check', 'this check', { context: 3 });
  return { status: 'changed', diffText };
}
