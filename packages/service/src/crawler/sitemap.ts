// Sitemap reader: robots.txt `Sitemap:` lines and /sitemap.xml, sitemap indexes (nested),
// gzipped sitemaps and plain-text sitemaps (one URL per line).
import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import type { ResourceFetcher } from './fetcher.js';
import { readResource } from './transient.js';

export interface SitemapReadOptions {
  fetcher: ResourceFetcher;
  signal?: AbortSignal;
  /** Stop after this many page URLs. */
  maxUrls: number;
  /** Stop after fetching this many sitemap files (indexes included). */
  maxSitemaps?: number;
  /** Called with each sitemap file's page URLs as soon as it is read, so a crawl can start on them. */
  onUrls?: (urls: string[]) => void;
  /** Checked between files: true when the caller needs no more URLs (its page budget is spent). */
  shouldStop?: () => boolean;
  /** Called for each sitemap file still unreadable after retries (crawler/transient.ts): the URLs read are partial. */
  onUnread?: (url: string, reason: string) => void;
}

const MAX_SITEMAP_BYTES = 50 * 1024 * 1024; // the sitemaps.org limit for an uncompressed file
const DEFAULT_MAX_SITEMAPS = 200;

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

interface ParsedSitemap {
  pages: string[];
  sitemaps: string[];
}

function locs(entries: unknown): string[] {
  if (!Array.isArray(entries)) return [];
  const out: string[] = [];
  for (const entry of entries) {
    const loc = (entry as { loc?: unknown } | null)?.loc;
    if (typeof loc === 'string' && loc.trim()) out.push(loc.trim());
  }
  return out;
}

export function parseSitemap(body: Buffer): ParsedSitemap {
  const bytes = body.length > 2 && body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body;
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '').trim();
  if (!text.startsWith('<')) {
    // Plain-text sitemap: one absolute URL per line.
    return { pages: text.split(/\r?\n/).map((l) => l.trim()).filter((l) => /^https?:\/\//i.test(l)), sitemaps: [] };
  }
  const doc = parser.parse(text) as { urlset?: { url?: unknown }; sitemapindex?: { sitemap?: unknown } };
  return { pages: locs(doc.urlset?.url), sitemaps: locs(doc.sitemapindex?.sitemap) };
}

/** Reads every sitemap reachable from `roots`; returns the page URLs (deduplicated, in order). */
export async function readSitemaps(roots: string[], opts: SitemapReadOptions): Promise<string[]> {
  const queue = [...new Set(roots)];
  const visited = new Set<string>();
  const seenPages = new Set<string>();
  const pages: string[] = [];
  const maxSitemaps = opts.maxSitemaps ?? DEFAULT_MAX_SITEMAPS;
  while (queue.length > 0 && visited.size < maxSitemaps && pages.length < opts.maxUrls) {
    if (opts.signal?.aborted || opts.shouldStop?.()) break;
    const url = queue.shift() as string;
    if (visited.has(url)) continue;
    visited.add(url);
    let parsed: ParsedSitemap;
    try {
      const read = await readResource(opts.fetcher, url, { signal: opts.signal, maxBytes: MAX_SITEMAP_BYTES, accept: 'application/xml,text/xml,text/plain,*/*' });
      if (read.kind === 'unread') {
        if (!opts.signal?.aborted) opts.onUnread?.(url, read.reason);
        continue;
      }
      if (read.res.status < 200 || read.res.status >= 300) continue;
      parsed = parseSitemap(read.res.body);
    } catch {
      // A refused or unparsable sitemap is skipped; link discovery still finds the pages.
      continue;
    }
    for (const s of parsed.sitemaps) if (!visited.has(s)) queue.push(s);
    const fresh: string[] = [];
    for (const p of parsed.pages) {
      if (seenPages.has(p) || pages.length + fresh.length >= opts.maxUrls) continue;
      seenPages.add(p);
      fresh.push(p);
    }
    pages.push(...fresh);
    if (fresh.length > 0) opts.onUrls?.(fresh);
  }
  return pages;
}

/** The sitemap roots of a site: robots.txt `Sitemap:` lines plus the conventional /sitemap.xml. */
export function sitemapRoots(origin: string, robotsSitemaps: string[]): string[] {
  return [...new Set([...robotsSitemaps, `${origin}/sitemap.xml`])];
}
