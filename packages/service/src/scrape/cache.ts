// The scrape cache (maxAge / minAge / storeInCache / lockdown): an in-memory LRU bounded by entry
// count and by an estimate of the bytes held. Keys combine the URL with every option that changes
// the output, so a hit is exactly what a fresh scrape with the same options would give.
import type { PageDocument } from '../core/scrape.js';
import type { NormalizedOptions } from './options.js';

export interface CachedPage {
  document: PageDocument;
  discoveredLinks: string[];
  storedAt: number;
}

export interface CacheLimits {
  maxEntries: number;
  maxBytes: number;
}

export function cacheKey(url: string, o: NormalizedOptions): string {
  const headers = Object.keys(o.headers).sort().map((k) => [k, o.headers[k]]);
  return JSON.stringify([
    url, [...o.formats].sort(), o.onlyMainContent, o.includeTags, o.excludeTags, o.removeBase64Images,
    o.pdf, o.mobile, headers,
  ]);
}

function estimateBytes(page: CachedPage): number {
  const d = page.document;
  let size = 512 + (d.markdown?.length ?? 0) + (d.html?.length ?? 0) + (d.rawHtml?.length ?? 0);
  for (const list of [d.links, d.images, page.discoveredLinks]) for (const s of list ?? []) size += s.length + 16;
  return size * 2; // UTF-16 in memory
}

export class ScrapeCache {
  // A Map iterates in insertion order: re-inserting on access makes the first key the least recent.
  private readonly entries = new Map<string, { page: CachedPage; bytes: number }>();
  private bytes = 0;

  constructor(private readonly limits: CacheLimits) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): CachedPage | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.page;
  }

  set(key: string, page: CachedPage): void {
    const bytes = estimateBytes(page);
    if (bytes > this.limits.maxBytes) return;
    this.delete(key);
    this.entries.set(key, { page, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
