// Rendered HTML → page document with the HTTP engine's own conversion (scrape/convert.ts),
// so both engines produce the same markdown, html, links, images and metadata.
import type { PageDocument } from '../core/scrape.js';
import { convertPage } from '../scrape/convert.js';
import { normalizeOptions } from '../scrape/options.js';

export interface ConvertInput {
  html: string;
  /** Final URL after redirects and navigation. */
  url: string;
  sourceURL: string;
  statusCode: number;
  contentType?: string;
  headers?: Record<string, string>;
  scrapeId: string;
  /** The request's scrape options (browser-only members are ignored here). */
  options: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface Converted {
  document: PageDocument;
  discoveredLinks: string[];
}

const PLAIN_FORMATS = new Set(['markdown', 'html', 'rawHtml', 'links', 'images']);

/** The options with what only a browser honours taken out, so the HTTP engine's rules accept them. */
function conversionOptions(options: Record<string, unknown>): Record<string, unknown> {
  const { actions: _a, waitFor: _w, location: _l, profile: _p, ...rest } = options;
  const formats = Array.isArray(options.formats) ? options.formats : ['markdown'];
  const plain = formats.filter((f) => PLAIN_FORMATS.has(typeof f === 'string' ? f.split('@')[0] : (f as { type?: string } | null)?.type ?? ''));
  // The page was just rendered: never answer from the HTTP engine's cache rules.
  return { ...rest, formats: plain, maxAge: 0, minAge: undefined, lockdown: false };
}

export async function convertRendered(input: ConvertInput): Promise<Converted> {
  const normalized = normalizeOptions(conversionOptions(input.options), { timeoutMs: 60_000, maxAgeMs: 0 });
  const contentType = input.contentType && /html/i.test(input.contentType) ? input.contentType : 'text/html; charset=utf-8';
  return convertPage(
    { status: input.statusCode, url: input.url, headers: input.headers ?? {}, contentType, body: Buffer.from(input.html, 'utf8') },
    { sourceURL: input.sourceURL, scrapeId: input.scrapeId, signal: input.signal ?? new AbortController().signal },
    normalized,
  );
}
