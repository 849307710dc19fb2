// Map's link discovery: a bounded, shallow breadth-first walk of HTML links from the
// start URL (robots.txt obeyed), collecting titles and descriptions of visited pages.
import type { ResourceFetcher } from '../crawler/fetcher.js';
import type { RobotsBook } from '../crawler/robots.js';
import { parseHttpUrl } from '../crawler/url-key.js';
import { extractPageLinks } from './page-links.js';

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
  /** Stop once this many URLs are known. */
  enough: () => boolean;
  /** Reports each in-scope URL found, with title/description when the page was visited. */
  found: (url: URL, info?: { title?: string; description?: string }) => void;
}

export async function discoverLinks(start: URL, opts: DiscoveryOptions): Promise<void> {
  const visited = new Set<string>();
  let frontier: URL[] = [start];
  visited.add(opts.keyOf(start));
  let fetched = 0;
  for (let depth = 0; depth <= DISCOVERY_MAX_DEPTH && frontier.length > 0; depth++) {
    const next: URL[] = [];
    const queue = [...frontier];
    const worker = async () => {
      while (queue.length > 0 && fetched < DISCOVERY_MAX_PAGES && !opts.signal.aborted && !opts.enough()) {
        const url = queue.shift() as URL;
        if (!(await opts.robots.isAllowed(url))) continue;
        fetched++;
        let page;
        try {
          const res = await opts.fetcher.fetch(url.href, { signal: opts.signal, maxBytes: MAX_PAGE_BYTES, accept: 'text/html,*/*' });
          if (res.status >= 400 || !/html/i.test(res.contentType)) continue;
          page = extractPageLinks(res.body.toString('utf8'), res.url);
        } catch {
          continue;
        }
        opts.found(url, { title: page.title, description: page.description });
        for (const raw of page.links) {
          const link = parseHttpUrl(raw);
          if (!link || !opts.inScope(link)) continue;
          const key = opts.keyOf(link);
          opts.found(link);
          if (visited.has(key)) continue;
          visited.add(key);
          next.push(link);
        }
      }
    };
    await Promise.all(Array.from({ length: DISCOVERY_CONCURRENCY }, () => worker()));
    frontier = next;
  }
}
