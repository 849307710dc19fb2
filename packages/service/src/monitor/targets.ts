// Fetching a check's pages with the service's own machinery: a scrape target scrapes its URLs
// with the scrape engine; a crawl target walks the site with the crawler (same settings,
// robots and path rules as POST /v2/crawl) and scrapes every page it visits.
import { DEFAULT_CRAWL_LIMIT } from 'webdata-contract';
import { Crawler, type PageVisitor } from '../crawler/crawler.js';
import type { ServiceContext } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import { crawlSettings } from '../jobs/crawl-plan.js';
import type { JobsRuntime } from '../jobs/runtime.js';
import { newJobId } from '../http/ids.js';
import { mapPool } from './pool.js';
import type { MonitorTargetRecord } from './types.js';

export type FetchedPage =
  | { url: string; ok: true; markdown: string; statusCode: number; scrapeId: string }
  | { url: string; ok: false; error: string; statusCode: number | null; scrapeId: string | null };

export interface TargetFetch {
  pages: FetchedPage[];
  /** The walk ended by itself: pages it did not reach are gone (crawl targets only). */
  complete: boolean;
}

export interface FetchDeps {
  ctx: ServiceContext;
  jobs: JobsRuntime | undefined;
  team: TeamConfig;
  signal: AbortSignal;
  /** Asked before each page: false when the team is out of credits. */
  mayScrape(): boolean;
}

const SCRAPE_TARGET_CONCURRENCY = 4;

export async function fetchTarget(target: MonitorTargetRecord, deps: FetchDeps): Promise<TargetFetch> {
  if (target.type === 'scrape') {
    const pages = await mapPool(target.urls, Math.max(1, Math.min(SCRAPE_TARGET_CONCURRENCY, deps.team.concurrency)), (url) => scrapePage(url, target.scrapeOptions ?? {}, deps));
    return { pages, complete: true };
  }
  return crawlTarget(target, deps);
}

/**
 * Monitors compare markdown: it is always asked for, whatever else the target wants; and a
 * check reads the page itself unless the target sets maxAge (a cached copy would hide changes).
 */
function withMarkdown(options: Record<string, unknown>): Record<string, unknown> {
  const formats = Array.isArray(options.formats) ? (options.formats as unknown[]) : [];
  const has = formats.some((f) => f === 'markdown' || (typeof f === 'object' && f !== null && (f as { type?: unknown }).type === 'markdown'));
  return { maxAge: 0, ...options, formats: has ? formats : ['markdown', ...formats] };
}

async function scrapePage(url: string, options: Record<string, unknown>, deps: FetchDeps): Promise<FetchedPage> {
  return (await scrapeWithLinks(url, options, deps)).page;
}

async function scrapeWithLinks(url: string, options: Record<string, unknown>, deps: FetchDeps): Promise<{ page: FetchedPage; links: string[] }> {
  if (!deps.mayScrape()) return { page: { url, ok: false, error: NO_CREDITS, statusCode: null, scrapeId: null }, links: [] };
  const scrapeId = newJobId(deps.ctx.now());
  try {
    const outcome = await deps.ctx.scrapeEngine.scrape(url, { ...withMarkdown(options), url }, { scrapeId, team: deps.team, signal: deps.signal });
    const { metadata, markdown } = outcome.document;
    if (metadata.statusCode >= 400) {
      return { page: { url, ok: false, error: `The page answered HTTP ${metadata.statusCode}`, statusCode: metadata.statusCode, scrapeId }, links: [] };
    }
    return { page: { url, ok: true, markdown: markdown ?? '', statusCode: metadata.statusCode, scrapeId }, links: outcome.discoveredLinks };
  } catch (err) {
    return { page: { url, ok: false, error: err instanceof Error ? err.message : String(err), statusCode: null, scrapeId }, links: [] };
  }
}

const NO_CREDITS = 'Insufficient credits: the team has no credits left for this check';

async function crawlTarget(target: Extract<MonitorTargetRecord, { type: 'crawl' }>, deps: FetchDeps): Promise<TargetFetch> {
  if (!deps.jobs) throw new Error('crawl targets need the jobs module');
  const options = { ...(target.crawlOptions ?? {}), url: target.url };
  const settings = crawlSettings(deps.jobs, options, deps.team, options.limit ?? DEFAULT_CRAWL_LIMIT, deps.signal);
  const pages: FetchedPage[] = [];
  let outOfCredits = false;
  const visitor: PageVisitor = {
    async visit(url) {
      const { page, links } = await scrapeWithLinks(url, target.scrapeOptions ?? {}, deps);
      pages.push(page);
      if (!page.ok && page.error === NO_CREDITS) {
        outOfCredits = true;
        return { status: 'stop' };
      }
      return page.ok ? { status: 'ok', links, finalUrl: url } : { status: 'failed' };
    },
    robotsBlocked() {},
    notAllowed(url, reason) {
      pages.push({ url, ok: false, error: reason, statusCode: null, scrapeId: null });
    },
  };
  await new Crawler(settings, visitor, deps.signal).run();
  return { pages, complete: !outOfCredits && !deps.signal.aborted };
}
