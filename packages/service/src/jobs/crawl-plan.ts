// A validated crawl request → the crawler's settings, with the reference defaults, the
// team's feature checks (403) and the credit clamp (402 only when nothing is left).
import { DEFAULT_CRAWL_LIMIT } from 'webdata-contract';
import type { CrawlRequestParsed } from 'webdata-contract';
import type { TeamConfig } from '../core/teams.js';
import { requireCredits } from '../billing/guard.js';
import type { CrawlSettings } from '../crawler/crawler.js';
import { DEFAULT_ROBOTS_AGENT } from '../crawler/fetcher.js';
import { PathFilter } from '../crawler/path-filter.js';
import { RobotsBook } from '../crawler/robots.js';
import { UrlScope } from '../crawler/url-scope.js';
import { forbidden } from '../http/errors.js';
import type { JobsRuntime } from './runtime.js';


export type CrawlOptions = Omit<CrawlRequestParsed, 'origin' | 'integration' | 'prompt'>;

/** 403 for options the team is not enabled for (reference section 5). */
export function checkCrawlFeatures(options: CrawlOptions, team: TeamConfig): void {
  if (options.ignoreRobotsTxt === true && !team.features.ignoreRobotsTxt) {
    throw forbidden('Forbidden: ignoreRobotsTxt is an enterprise feature not enabled for this team');
  }
  if (options.robotsUserAgent !== undefined && !team.features.ignoreRobotsTxt) {
    throw forbidden('Forbidden: robotsUserAgent is an enterprise feature not enabled for this team');
  }
  if (options.zeroDataRetention === true && !team.features.zeroDataRetention) {
    throw forbidden('Forbidden: zeroDataRetention is not enabled for this team; contact support to enable it');
  }
}

/** Pages a crawl may scrape: its limit, clamped to the credits the team has left. */
export function crawlLimit(jobsRuntime: JobsRuntime, options: CrawlOptions, team: TeamConfig): number {
  requireCredits(jobsRuntime.ctx.ledger, team);
  const available = Math.floor(jobsRuntime.credits.available(team.id));
  return Math.max(1, Math.min(options.limit ?? DEFAULT_CRAWL_LIMIT, available));
}

/** Builds crawler settings; throws HttpError 400 for a pattern that does not compile. */
export function crawlSettings(jobsRuntime: JobsRuntime, options: CrawlOptions, team: TeamConfig, limit: number, signal: AbortSignal): CrawlSettings {
  const start = new URL(options.url);
  start.hash = '';
  const delayMs = Math.round((options.delay ?? 0) * 1000);
  const teamCap = Math.max(1, team.concurrency);
  return {
    start,
    limit,
    maxDiscoveryDepth: options.maxDiscoveryDepth,
    sitemap: options.sitemap ?? 'include',
    ignoreQueryParameters: options.ignoreQueryParameters ?? false,
    scope: new UrlScope(start, {
      crawlEntireDomain: options.crawlEntireDomain ?? false,
      allowSubdomains: options.allowSubdomains ?? false,
      allowExternalLinks: options.allowExternalLinks ?? false,
    }),
    filter: new PathFilter(options),
    robots: new RobotsBook(jobsRuntime.fetcher, options.robotsUserAgent ?? DEFAULT_ROBOTS_AGENT, signal),
    obeyRobots: options.ignoreRobotsTxt !== true,
    concurrency: delayMs > 0 ? 1 : Math.min(options.maxConcurrency ?? teamCap, teamCap),
    delayMs,
    allowNonLoopback: jobsRuntime.ctx.config.allowNonLoopback,
    fetcher: jobsRuntime.fetcher,
  };
}
