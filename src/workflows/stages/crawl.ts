// crawl: a filtered crawl (include/exclude/limit from the selection), clamped to the budget.
import { compilePattern, DEFAULT_CRAWL_LIMIT } from 'webdata-contract/rules';
import { starts } from '../activities.js';
import { creditsPerPage } from '../credit-guard.js';
import { checkLimitCut } from '../limit-cut.js';
import { fitJob } from './fit-job.js';
import { hostOf, type PipelineRuntime } from '../runtime.js';
import { runJob } from './job.js';
import { governedInput, governorOf, withTeamShare } from '../governed.js';
import { escapePattern, pathOf, recoveryCrawl } from './recover.js';
import { robotsIgnoreRequested } from './robots.js';
import type { StageOutcome } from './types.js';

export async function runCrawl(pipeline: PipelineRuntime): Promise<StageOutcome> {
  const { config } = pipeline.state;
  const crawl = { ...(config.crawl ?? {}) };
  const select = config.select;
  if (pipeline.state.lists.selected) {
    if (crawl.includePaths === undefined && select?.include?.length) {
      // The service checks the start URL against includePaths too; a start page outside the
      // selection would end the crawl at once, so admit exactly that page as the way in.
      crawl.includePaths = admitStartPage(config.url, select.include);
    }
    crawl.excludePaths ??= select?.exclude;
    crawl.limit ??= pipeline.state.selectedCount;
  }
  const wanted = crawl.limit ?? DEFAULT_CRAWL_LIMIT;
  // A job resumed after continue-as-new was fitted before it started.
  const fit = pipeline.state.activeJob
    ? { kind: 'run' as const, units: wanted, allowance: Number.POSITIVE_INFINITY, tight: false }
    : await fitJob(pipeline, 'crawl: limit', wanted, creditsPerPage(crawl.scrapeOptions));
  if (fit.kind === 'skip') return { kind: 'skipped', reason: fit.reason };
  if (fit.units !== wanted) crawl.limit = fit.units;

  const ignoreRobots = robotsIgnoreRequested(config);
  if (ignoreRobots) crawl.ignoreRobotsTxt = true;
  const governor = governorOf(pipeline);
  if (governor) {
    // A crawl is one job (it cannot come in chunks): it holds its share until it ends.
    return withTeamShare(pipeline, governor, 'crawl', crawl.maxConcurrency, async (share) => {
      const outcome = await crawlJob(pipeline, { ...crawl, maxConcurrency: share }, ignoreRobots, fit, governedInput(governor));
      return { result: outcome, handedOver: outcome.kind === 'continue-as-new' };
    });
  }
  return crawlJob(pipeline, crawl, ignoreRobots, fit);
}

async function crawlJob(
  pipeline: PipelineRuntime,
  crawl: NonNullable<PipelineRuntime['state']['config']['crawl']>,
  ignoreRobots: boolean,
  fit: { allowance: number; tight: boolean },
  governed?: { teamConcurrency?: number },
): Promise<StageOutcome> {
  const { config } = pipeline.state;
  const perPage = creditsPerPage(crawl.scrapeOptions);
  const body = { url: config.url, ...crawl, ...freshScrapeOptions(pipeline, crawl.scrapeOptions), webhook: webhookFor(pipeline) };
  const outcome = await runJob(pipeline, {
    stage: 'crawl',
    kind: 'crawl',
    allowance: fit.allowance,
    tight: fit.tight,
    perPage,
    limitCut: { requested: crawl.limit ?? DEFAULT_CRAWL_LIMIT },
    recover: (lost) => recoveryCrawl(pipeline, body, lost, perPage),
    start: async (idempotencyKey) => {
      const started = await starts().startCrawl.executeWithOptions(
        { summary: `crawl ${hostOf(config.url)} limit ${crawl.limit ?? DEFAULT_CRAWL_LIMIT}` },
        [{ body, idempotencyKey, ...(governed ? { governed } : {}) }],
      );
      // Accepted (a team without the feature gets 403): the team may ignore robots.txt.
      if (ignoreRobots) pipeline.state.robotsIgnored = true;
      return started;
    },
  });
  if (outcome.kind === 'ok') await checkLimitCut(pipeline, 'crawl', crawl.limit ?? DEFAULT_CRAWL_LIMIT, perPage, outcome.collected?.teamCreditsLeft);
  return outcome;
}

/**
 * Include patterns plus an exact pattern for the start URL's path when none admits it. The
 * patterns are tested in linear time (RE2), so a hostile one cannot stall the workflow task.
 */
export function admitStartPage(url: string, include: string[]): string[] {
  const path = pathOf(url);
  const admits = (p: string) => compilePattern(p).test(path);
  if (include.some(admits)) return include;
  return [...include, `^${escapePattern(path)}$`];
}

/**
 * A run of a series compares pages with the last run: it must see the site as it is now, not a
 * cached scrape (the service's default maxAge is two days). An explicit maxAge is kept.
 */
export function freshScrapeOptions<T extends { maxAge?: number }>(pipeline: PipelineRuntime, scrapeOptions: T | undefined): { scrapeOptions?: T & { maxAge?: number } } {
  if (!pipeline.state.config.changes || scrapeOptions?.maxAge !== undefined) return scrapeOptions ? { scrapeOptions } : {};
  return { scrapeOptions: { ...(scrapeOptions ?? ({} as T)), maxAge: 0 } };
}

export function webhookFor(pipeline: PipelineRuntime): { url: string; metadata: Record<string, string>; events: Array<'completed' | 'failed'> } | undefined {
  const url = pipeline.state.config.webhookUrl;
  if (!url) return undefined;
  // Only the job's end: page events would grow history with pages (principle 4), and `started`
  // tells the run nothing its start's answer did not, at the cost of a signal and a workflow
  // task each, which come while a burst of runs is still starting.
  return { url, metadata: { workflowId: pipeline.workflowId(), runId: pipeline.state.runId }, events: ['completed', 'failed'] };
}
