// Indexes a site through the scrape engine, bounded: the demo site at startup, so search has
// something to find before anyone scrapes. URLs come from a given list (the demo site's
// manifest) or from the site's sitemaps; robots.txt is obeyed, as a search crawler would.
import type { ServiceContext } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import type { SiteManifest } from '../demo-site/index.js';
import { createResourceFetcher, DEFAULT_ROBOTS_AGENT } from '../crawler/fetcher.js';
import { RobotsBook } from '../crawler/robots.js';
import { readSitemaps, sitemapRoots } from '../crawler/sitemap.js';
import { newJobId } from '../http/ids.js';
import type { SearchIndex } from './store.js';

export interface SeedOptions {
  /** Site origin, e.g. "http://127.0.0.1:4000". */
  origin: string;
  /** Pages to index; default: the sitemap's URLs. */
  urls?: string[];
  /** At most this many pages (default 1000). */
  maxPages?: number;
  concurrency?: number;
  signal?: AbortSignal;
}

/** The team the indexer scrapes as: it is never charged (the ledger is not touched). */
const INDEXER_TEAM: TeamConfig = {
  id: 'search-indexer', apiKeys: [], credits: 0, rateLimits: {}, concurrency: 2, maxBrowserSessions: 0,
  features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
};

/** Scrapes and indexes the pages; resolves with how many were indexed. Never throws. */
export async function seedSite(ctx: ServiceContext, index: SearchIndex, opts: SeedOptions): Promise<number> {
  const fetcher = createResourceFetcher({ allowNonLoopback: ctx.config.allowNonLoopback });
  const signal = opts.signal;
  const max = opts.maxPages ?? 1000;
  let indexed = 0;
  try {
    const robots = new RobotsBook(fetcher, DEFAULT_ROBOTS_AGENT, signal);
    const urls = opts.urls
      ?? await readSitemaps(sitemapRoots(opts.origin, await robots.sitemaps(opts.origin)), { fetcher, signal, maxUrls: max });
    const queue = [...new Set(urls)].slice(0, max);
    const worker = async () => {
      for (let url = queue.shift(); url !== undefined && !signal?.aborted; url = queue.shift()) {
        try {
          if (!(await robots.isAllowed(new URL(url)))) continue;
          const outcome = await ctx.scrapeEngine.scrape(url, { url, formats: ['markdown', 'rawHtml'], onlyMainContent: true }, {
            scrapeId: newJobId(ctx.now()), team: INDEXER_TEAM, signal,
          });
          const before = index.size;
          index.index(outcome.document);
          if (index.size > before) indexed++;
        } catch {
          // A page that cannot be scraped is not indexed; the others still are.
        }
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency ?? 2 }, () => worker()));
  } catch {
    // Sitemaps unreadable: nothing to index.
  } finally {
    await fetcher.close();
  }
  return indexed;
}

/**
 * The demo site's pages worth indexing: every page that answers 200 with HTML or a PDF and
 * that robots.txt allows. The JavaScript page and /slow are left out (they would cost a
 * browser launch and a 3 s wait at every start).
 */
export function demoSeedUrls(manifest: SiteManifest): string[] {
  return manifest.entries
    .filter((e) => e.status === 200 && (e.kind === 'html' || e.kind === 'pdf') && !e.robotsDisallowed)
    .map((e) => e.url);
}
