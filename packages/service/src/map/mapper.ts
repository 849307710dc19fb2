// POST /v2/map: the site's URLs from its sitemaps (cached) and from a shallow link walk,
// limited to the start host (and its subdomains with includeSubdomains) and, when the
// URL has a path, to that path; ranked by `search` when given.
import { DEFAULT_MAP_LIMIT } from 'webdata-contract';
import type { MapRequestParsed } from 'webdata-contract';
import { DEFAULT_ROBOTS_AGENT } from '../crawler/fetcher.js';
import { RobotsBook } from '../crawler/robots.js';
import { readSitemaps, sitemapRoots } from '../crawler/sitemap.js';
import { dedupeKey, parseHttpUrl } from '../crawler/url-key.js';
import { childPrefix, UrlScope } from '../crawler/url-scope.js';
import type { JobsRuntime } from '../jobs/runtime.js';
import { discoverLinks } from './discover.js';
import { rankLinks, type MapLink } from './rank.js';
import type { SitemapCache } from './sitemap-cache.js';

/** Sitemap URLs read per site, whatever the limit (a sitemap may list other sections). */
const MAX_SITEMAP_URLS = 500_000;

export type MapOptions = Omit<MapRequestParsed, 'origin' | 'integration'>;

export async function mapSite(rt: JobsRuntime, cache: SitemapCache, options: MapOptions, signal: AbortSignal): Promise<MapLink[]> {
  const start = parseHttpUrl(options.url) as URL;
  const limit = options.limit ?? DEFAULT_MAP_LIMIT;
  const ignoreQuery = options.ignoreQueryParameters ?? true;
  const sitemap = options.sitemap ?? 'include';
  const scope = new UrlScope(start, { crawlEntireDomain: true, allowSubdomains: options.includeSubdomains ?? true, allowExternalLinks: false });
  const prefix = start.pathname === '/' ? undefined : childPrefix(start.pathname);
  const inScope = (url: URL) =>
    scope.allows(url) && (prefix === undefined || url.pathname === start.pathname || url.pathname.startsWith(prefix) || scope.relation(url) !== 'same');

  // The start URL, then the sitemaps' URLs in their order, then the walk's in its breadth-first
  // order, whichever source answers first: the same site maps to the same list, also when the
  // limit cuts it. The walk stops once it found `limit` URLs itself, so how far it goes does not
  // depend on how much of the sitemap had arrived (nor do the titles it read).
  const collector = () => {
    const found = new Map<string, MapLink>();
    const add = (raw: URL, info?: { title?: string; description?: string }) => {
      const url = new URL(raw.href);
      if (ignoreQuery) url.search = '';
      const key = url.href;
      const existing = found.get(key);
      if (existing) {
        if (info?.title && !existing.title) existing.title = info.title;
        if (info?.description && !existing.description) existing.description = info.description;
        return;
      }
      found.set(key, { url: url.href, ...(info?.title ? { title: info.title } : {}), ...(info?.description ? { description: info.description } : {}) });
    };
    return { found, add };
  };
  const first = collector();
  const sitemapped = collector();
  const walked = collector();
  first.add(start);

  const robots = new RobotsBook(rt.fetcher, DEFAULT_ROBOTS_AGENT, signal);
  const fromSitemaps = async () => {
    let urls = options.ignoreCache ? undefined : cache.get(start.origin);
    if (!urls) {
      urls = await readSitemaps(sitemapRoots(start.origin, await robots.sitemaps(start.origin)), {
        fetcher: rt.fetcher,
        signal,
        maxUrls: MAX_SITEMAP_URLS,
      });
      // A read cut short by the timeout is not cached: it may be incomplete.
      if (!signal.aborted) cache.set(start.origin, urls);
    }
    for (const raw of urls) {
      const url = parseHttpUrl(raw);
      if (url && inScope(url)) sitemapped.add(url);
    }
  };
  const fromLinks = () =>
    discoverLinks(start, {
      fetcher: rt.fetcher,
      robots,
      inScope,
      keyOf: (u) => dedupeKey(u, ignoreQuery),
      signal,
      enough: () => walked.found.size >= limit && !options.search,
      found: walked.add,
    });

  // Both sources run together; on timeout (signal aborted) map answers what it found.
  await Promise.all([
    sitemap !== 'skip' ? fromSitemaps().catch(() => undefined) : undefined,
    sitemap !== 'only' ? fromLinks().catch(() => undefined) : undefined,
  ]);

  const links = new Map<string, MapLink>();
  for (const source of [first.found, sitemapped.found, walked.found]) {
    for (const [key, link] of source) {
      const existing = links.get(key);
      if (!existing) links.set(key, { ...link });
      else {
        // A title or description from the walk fills in a URL first listed by a sitemap.
        if (link.title && !existing.title) existing.title = link.title;
        if (link.description && !existing.description) existing.description = link.description;
      }
    }
  }
  const all = [...links.values()];
  const ordered = options.search ? rankLinks(all, options.search) : all;
  return ordered.slice(0, limit);
}
