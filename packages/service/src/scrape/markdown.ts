// HTML → markdown with mdream (GFM tables, fenced code with its language, compact nested lists,
// turndown-style escaping), on the engine markdown-engine.ts selected. Chosen over turndown
// (which builds a second DOM of its own) for a fraction of the CPU with near-identical output.
// The HTML comes prepared (clean.ts, prepareForMarkdown), so every engine runs without options:
// the native one cannot alias built-in tags as the JS one did.
import { markdownEngine, type MarkdownEngine } from './markdown-engine.js';
import { BASE64_IMAGE_PLACEHOLDER } from './text.js';

// mdream escapes the placeholder's angle brackets; it is written as-is, as the hosted service writes it.
const ESCAPED_PLACEHOLDER = `](<${BASE64_IMAGE_PLACEHOLDER.replace(/[<>]/g, '\\$&')}>)`;

export function htmlToMarkdown(html: string, engine: MarkdownEngine = markdownEngine): string {
  if (!html.trim()) return '';
  let md = engine.convert(html);
  if (md.includes(ESCAPED_PLACEHOLDER)) md = md.split(ESCAPED_PLACEHOLDER).join(`](${BASE64_IMAGE_PLACEHOLDER})`);
  return tidyMarkdown(md);
}

/** Runs of blank lines made one, the ends trimmed (both paths finish the engine's output so). */
export function tidyMarkdown(md: string): string {
  return md.replace(/\n{3,}/g, '\n\n').trim();
}
