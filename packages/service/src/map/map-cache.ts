// What map read of a site, kept up to 7 days (reference section 8, "Map sitemap cache"), as the
// hosted map answers from what it has seen: the sitemaps' URLs per origin, and the link walk's
// finds per walk (start URL and the options that steer the walk). `ignoreCache` reads both again
// and refreshes the entries. A read cut short (timeout, caller gone) or missing a file or page the
// site failed to serve (crawler/transient.ts, after its retries) is not kept.

export const MAP_CACHE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const MAX_ENTRIES = 1000;

/** A walked URL and what its page said, in the walk's order (the URLs are never changed). */
export type WalkedLink = [url: URL, info: { title?: string; description?: string } | undefined];

class TtlEntries<T> {
  private readonly entries = new Map<string, { value: T; at: number }>();

  constructor(private readonly now: () => number, private readonly ttlMs: number) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: this.now() });
    // Oldest first in a Map: drop the oldest entry when full.
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}

export class MapCache {
  /** Sitemap URLs by site origin. */
  readonly sitemaps: TtlEntries<string[]>;
  /** The link walk's finds by walk key (see mapper.ts). */
  readonly walks: TtlEntries<WalkedLink[]>;

  constructor(now: () => number, ttlMs = MAP_CACHE_TTL_MS) {
    this.sitemaps = new TtlEntries(now, ttlMs);
    this.walks = new TtlEntries(now, ttlMs);
  }
}
