// POST /v2/map: the site's URLs from its sitemaps and from a shallow link walk (both cached),
// limited to the start host (and its subdomains with includeSubdomains) and, when the
// URL has a path, to that path; ranked by `search` when given.
import { DEFAULT_MAP_LIMIT, dedupeKey, parseHttpUrl } from 'webdata-contract';
import type { MapRequestParsed } from 'webdata-contract';
import { DEFAULT_ROBOTS_AGENT } from '../crawler/fetcher.js';
import { RobotsBook } from '../crawler/robots.js';
import { readSitemaps, sitemapRoots } from '../crawler/sitemap.js';
import { childPrefix, UrlScope } from '../crawler/url-scope.js';
import type { JobsRuntime } from '../jobs/runtime.js';
import { discoverLinks } from './discover.js';
import { rankLinks, type MapLink } from './rank.js';
import type { MapCache, WalkedLink } from './map-cache.js';

/** Sitemap URLs read per site, whatever the limit (a sitemap may list other sections). */
const MAX_SITEMAP_URLS = 500_000;

export type MapOptions = Omit<MapRequestParsed, 'origin' | 'integration'>;

/**
 * A walk's finds with each URL once (a link found on 200 pages is 200 finds), where it was first
 * found, with the first title and description any of its finds carried: adding these gives what
 * adding every find gives, in a fraction of the memory.
 */
function onePerKey(walked: WalkedLink[], keyOf: (url: URL) => string): WalkedLink[] {
  const byKey = new Map<string, WalkedLink>();
  for (const [url, info] of walked) {
    const key = keyOf(url);
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, [url, info && { ...info }]);
      continue;
    }
    if (!info) continue;
    const kept = (seen[1] ??= {});
    if (info.title && !kept.title) kept.title = info.title;
    if (info.description && !kept.description) kept.description = info.description;
  }
  return [...byKey.values()];
}

export async function mapSite(jobsRuntime: JobsRuntime, cache: MapCache, options: MapOptions, signal: AbortSignal): Promise<MapLink[]> {
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
  // limit cuts it. The sitemaps' URLs go straight in after the start URL; the walk's are kept
  // apart and added once both sources ended. The walk stops once it found `limit` URLs itself,
  // so how far it goes does not depend on how much of the sitemap had arrived (nor do the
  // titles it read).
  const keyOf = (found: URL) => {
    const url = new URL(found.href);
    if (ignoreQuery) url.search = '';
    return url.href;
  };
  const links = new Map<string, MapLink>();
  const add = (found: URL, info?: { title?: string; description?: string }) => {
    const key = keyOf(found);
    const existing = links.get(key);
    if (existing) {
      if (info?.title && !existing.title) existing.title = info.title;
      if (info?.description && !existing.description) existing.description = info.description;
      return;
    }
    links.set(key, { url: key, ...(info?.title ? { title: info.title } : {}), ...(info?.description ? { description: info.description } : {}) });
  };
  add(start);
  const walked: WalkedLink[] = [];
  const walkedKeys = new Set<string>();

  const robots = new RobotsBook(jobsRuntime.fetcher, DEFAULT_ROBOTS_AGENT, signal);
  const fromSitemaps = async () => {
    let urls = options.ignoreCache ? undefined : cache.sitemaps.get(start.origin);
    if (!urls) {
      let complete = true;
      urls = await readSitemaps(sitemapRoots(start.origin, await robots.sitemaps(start.origin)), {
        fetcher: jobsRuntime.fetcher,
        signal,
        maxUrls: MAX_SITEMAP_URLS,
        onUnread: () => {
          complete = false;
        },
      });
      // A read cut short by the timeout, or missing a file the site failed to serve, is not
      // cached: the next map reads the sitemaps again instead of answering a partial list for a week.
      if (!signal.aborted && complete) cache.sitemaps.set(start.origin, urls);
    }
    for (const raw of urls) {
      const url = parseHttpUrl(raw);
      if (url && inScope(url)) add(url);
    }
  };
  // What steers the walk: where it starts and stays, how it de-duplicates, when it has enough.
  const walkKey = JSON.stringify([start.href, options.includeSubdomains ?? true, ignoreQuery, limit, Boolean(options.search)]);
  const fromLinks = async () => {
    const cached = options.ignoreCache ? undefined : cache.walks.get(walkKey);
    if (cached) {
      walked.push(...cached);
      return;
    }
    let complete = true;
    await discoverLinks(start, {
      fetcher: jobsRuntime.fetcher,
      robots,
      inScope,
      keyOf: (u) => dedupeKey(u, ignoreQuery),
      signal,
      enough: () => walkedKeys.size >= limit && !options.search,
      found: (url, info) => {
        walked.push([url, info]);
        walkedKeys.add(keyOf(url));
      },
      unread: () => {
        complete = false;
      },
    });
    // A walk cut short by the timeout, or with a page the site failed to serve, is not kept.
    if (!signal.aborted && complete) cache.walks.set(walkKey, onePerKey(walked, keyOf));
  };

  // Both sources run together; on timeout (signal aborted) map answers what it found.
  await Promise.all([
    sitemap !== 'skip' ? fromSitemaps().catch(() => undefined) : undefined,
    sitemap !== 'only' ? fromLinks().catch(() => undefined) : undefined,
  ]);

  for (const [url, info] of walked) add(url, info);
  const all = [...links.values()];
  const ordered = options.search ? rankLinks(all, options.search) : all;
  return ordered.slice(0, limit);
}
