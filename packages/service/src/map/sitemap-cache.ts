// Sitemap URLs per site origin, kept up to 7 days (reference section 8); `ignoreCache`
// reads the sitemaps again and refreshes the entry.

export const SITEMAP_CACHE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const MAX_ENTRIES = 1000;

export class SitemapCache {
  private readonly entries = new Map<string, { urls: string[]; at: number }>();

  constructor(private readonly now: () => number, private readonly ttlMs = SITEMAP_CACHE_TTL_MS) {}

  get(origin: string): string[] | undefined {
    const entry = this.entries.get(origin);
    if (!entry) return undefined;
    if (this.now() - entry.at >= this.ttlMs) {
      this.entries.delete(origin);
      return undefined;
    }
    return entry.urls;
  }

  set(origin: string, urls: string[]): void {
    this.entries.delete(origin);
    this.entries.set(origin, { urls, at: this.now() });
    // Oldest first in a Map: drop the oldest entry when full.
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}
