// A dry crawl: the crawler's own frontier, scope, path filter, robots.txt and sitemap logic
// (crawler/), but pages are fetched raw and only their links read: no scrape engine, no
// credits, no job. Bounded in pages and time, it shows which pages a crawl with given
// options would reach, so a fix to includePaths, depth, scope or limit is tested for real.
import { Crawler, type CrawlSettings, type PageVisitor } from '../../crawler/crawler.js';
import { DEFAULT_ROBOTS_AGENT } from '../../crawler/fetcher.js';
import { PathFilter } from '../../crawler/path-filter.js';
import { RobotsBook } from '../../crawler/robots.js';
import { UrlScope } from '../../crawler/url-scope.js';
import { extractPageLinks } from '../../map/page-links.js';
import type { Case } from '../types.js';

export interface DryCrawlResult {
  /** Pages that answered < 400, in visit order. */
  pages: string[];
  failed: string[];
  robotsBlocked: string[];
  /** True when the page cap stopped it (more pages may exist). */
  capped: boolean;
  /** True when the time cap or the budget stopped it. */
  timedOut: boolean;
}

const MAX_PAGE_BYTES = 5 * 1024 * 1024;

export async function dryCrawl(c: Case, options: Record<string, unknown>, caps: { maxPages: number; maxMs: number }): Promise<DryCrawlResult> {
  const signal = c.timeBudget.within(caps.maxMs);
  const start = new URL(String(options.url));
  start.hash = '';
  const result: DryCrawlResult = { pages: [], failed: [], robotsBlocked: [], capped: false, timedOut: false };
  const settings: CrawlSettings = {
    start,
    limit: caps.maxPages,
    maxDiscoveryDepth: typeof options.maxDiscoveryDepth === 'number' ? options.maxDiscoveryDepth : undefined,
    sitemap: options.sitemap === 'skip' || options.sitemap === 'only' ? options.sitemap : 'include',
    ignoreQueryParameters: options.ignoreQueryParameters === true,
    scope: new UrlScope(start, {
      crawlEntireDomain: options.crawlEntireDomain === true,
      allowSubdomains: options.allowSubdomains === true,
      allowExternalLinks: options.allowExternalLinks === true,
    }),
    filter: new PathFilter(options as { includePaths?: string[]; excludePaths?: string[]; regexOnFullURL?: boolean }),
    robots: new RobotsBook(c.fetcher, typeof options.robotsUserAgent === 'string' ? options.robotsUserAgent : DEFAULT_ROBOTS_AGENT, signal),
    obeyRobots: options.ignoreRobotsTxt !== true,
    concurrency: 4,
    delayMs: 0,
    allowNonLoopback: c.ctx.config.allowNonLoopback,
    fetcher: c.fetcher,
  };
  const visitor: PageVisitor = {
    async visit(url, pageSignal) {
      try {
        const res = await c.fetcher.fetch(url, { signal: pageSignal, maxBytes: MAX_PAGE_BYTES, accept: 'text/html,*/*' });
        if (res.status >= 400) {
          result.failed.push(url);
          return { status: 'failed' };
        }
        result.pages.push(url);
        const links = /html/i.test(res.contentType) ? extractPageLinks(res.body.toString('utf8'), res.url).links : [];
        return { status: 'ok', links, finalUrl: res.url };
      } catch {
        if (!pageSignal.aborted) result.failed.push(url);
        return { status: 'failed' };
      }
    },
    robotsBlocked(url) {
      result.robotsBlocked.push(url);
    },
    notAllowed(url) {
      result.failed.push(url);
    },
  };
  await new Crawler(settings, visitor, signal).run();
  result.timedOut = signal.aborted;
  result.capped = result.pages.length + result.failed.length >= caps.maxPages;
  return result;
}

/** Paths of a dry crawl's pages for evidence text: "/docs, /docs/guide-1, ... (12 pages)". */
export function samplePaths(urls: string[], n = 4): string {
  const paths = urls.slice(0, n).map((u) => {
    try {
      const x = new URL(u);
      return x.pathname + x.search;
    } catch {
      return u;
    }
  });
  return urls.length > n ? `${paths.join(', ')}, ...` : paths.join(', ');
}
