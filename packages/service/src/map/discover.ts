// Map's link discovery: a bounded, shallow breadth-first walk of HTML links from the
// start URL (robots.txt obeyed), collecting titles and descriptions of visited pages.
import type { ResourceFetcher } from '../crawler/fetcher.js';
import type { RobotsBook } from '../crawler/robots.js';
import { readResource } from '../crawler/transient.js';
import { parseHttpUrl } from 'webdata-contract';
import { extractPageLinks } from './page-links.js';

/** URLs the walk takes up, in breadth-first order (fetched, or refused by robots.txt). */
export const DISCOVERY_MAX_PAGES = 200;
export const DISCOVERY_MAX_DEPTH = 3;
const DISCOVERY_CONCURRENCY = 8;
const MAX_PAGE_BYTES = 5 * 1024 * 1024;

export interface DiscoveryOptions {
  fetcher: ResourceFetcher;
  robots: RobotsBook;
  /** Whether a URL belongs to the mapped site (its links are followed, it is reported). */
  inScope: (url: URL) => boolean;
  /** De-duplication key of a URL. */
  keyOf: (url: URL) => string;
  signal: AbortSignal;
  /** Whether the walk has found enough; asked after each page, in the walk's order. */
  enough: () => boolean;
  /** Reports each in-scope URL found, with title/description when the page was visited. */
  found: (url: URL, info?: { title?: string; description?: string }) => void;
  /** A page still unreadable after retries (crawler/transient.ts): the walk is partial. */
  unread?: (url: URL, reason: string) => void;
}

/** A walked page's contribution, applied in the walk's order (see discoverLinks). */
type Visit = { url: URL; title?: string; description?: string; links: string[] } | 'nothing';

/**
 * The walk's result depends on the site only, never on which fetch answers first: pages are
 * taken up in breadth-first order (the cap counts them in that order) and what each page adds
 * (its links, the next level's order) is applied in that same order, as soon as every page
 * before it has been. Under load a 300-page site otherwise mapped to different URL sets.
 */
export async function discoverLinks(start: URL, opts: DiscoveryOptions): Promise<void> {
  const visited = new Set<string>();
  let frontier: URL[] = [start];
  visited.add(opts.keyOf(start));
  let takenTotal = 0;
  let stopped = false;
  for (let depth = 0; depth <= DISCOVERY_MAX_DEPTH && frontier.length > 0 && !stopped; depth++) {
    const level = frontier;
    const next: URL[] = [];
    const visits: Array<Visit | undefined> = [];
    let taken = 0;
    let applied = 0;
    const apply = () => {
      while (!stopped && applied < taken && visits[applied] !== undefined) {
        const v = visits[applied++] as Visit;
        if (v !== 'nothing') {
          opts.found(v.url, { title: v.title, description: v.description });
          for (const raw of v.links) {
            const link = parseHttpUrl(raw);
            if (!link || !opts.inScope(link)) continue;
            const key = opts.keyOf(link);
            opts.found(link);
            if (visited.has(key)) continue;
            visited.add(key);
            next.push(link);
          }
        }
        // Judged after each page in the walk's order: where the walk stops does not depend on
        // which fetch answered first (pages fetched past that point are dropped).
        if (opts.enough()) stopped = true;
      }
    };
    const worker = async () => {
      while (!stopped && taken < level.length && takenTotal < DISCOVERY_MAX_PAGES && !opts.signal.aborted) {
        const i = taken++;
        takenTotal++;
        visits[i] = await visit(level[i] as URL, opts);
        apply();
      }
    };
    await Promise.all(Array.from({ length: DISCOVERY_CONCURRENCY }, () => worker()));
    apply();
    frontier = next;
  }
}

async function visit(url: URL, opts: DiscoveryOptions): Promise<Visit> {
  try {
    if (!(await opts.robots.isAllowed(url))) return 'nothing';
    const read = await readResource(opts.fetcher, url.href, { signal: opts.signal, maxBytes: MAX_PAGE_BYTES, accept: 'text/html,*/*' });
    if (read.kind === 'unread') {
      if (!opts.signal.aborted) opts.unread?.(url, read.reason);
      return 'nothing';
    }
    const res = read.res;
    if (res.status >= 400 || !/html/i.test(res.contentType)) return 'nothing';
    const page = extractPageLinks(res.body.toString('utf8'), res.url);
    return { url, title: page.title, description: page.description, links: page.links };
  } catch {
    return 'nothing';
  }
}
