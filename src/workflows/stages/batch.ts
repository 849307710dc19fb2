// batch: scrape the selected URLs the crawl did not return (or all selected URLs in batch mode).
import { lists, starts } from '../activities.js';
import { creditsPerPage } from '../credit-guard.js';
import { appendAfterRaise } from './batch-append.js';
import { checkLimitCut } from '../limit-cut.js';
import { fitJob } from './fit-job.js';
import type { PipelineRuntime } from '../runtime.js';
import { freshScrapeOptions, webhookFor } from './crawl.js';
import { runJob } from './job.js';
import { governorOf } from '../governed.js';
import { runChunks } from './batch-chunks.js';
import { recoveryBatch } from './recover.js';
import { robotsCheck, robotsIgnoreRequested } from './robots.js';
import type { StageOutcome } from './types.js';

export async function runBatch(pipeline: PipelineRuntime): Promise<StageOutcome> {
  const { state } = pipeline;
  const { config } = state;
  const report = pipeline.report('batch');
  if (!state.activeJob) {
    const source = config.mode === 'batch' ? state.lists.selected ?? state.lists.mapped : state.lists.selected;
    if (!source) {
      return config.mode === 'batch'
        ? { kind: 'skipped', reason: 'needs mapped or selected URLs' }
        : { kind: 'skipped', reason: 'no selection to complete (select stage off)' };
    }
    const diff = await lists.diffUrls.executeWithOptions(
      { summary: config.mode === 'batch' ? `batch list from ${source}` : `URLs the crawl missed` },
      [{ runId: state.runId, fromList: source, coveredByJobs: config.mode === 'batch' ? [] : crawlJobs(pipeline), toList: 'missing' }],
    );
    state.lists.missing = 'missing';
    report.urls = diff.count;
    if (diff.count === 0) return { kind: 'skipped', reason: 'the crawl returned every selected URL' };

    // Batch scrape does not read robots.txt on the service: leave out what it disallows.
    const robots = robotsCheck(pipeline);
    if (robots) {
      const allowed = await lists.filterRobots.executeWithOptions(
        { summary: 'leave out URLs robots.txt disallows' },
        [{ runId: state.runId, fromList: 'missing', toList: 'missing.allowed', skippedList: 'missing.robots', ...robots }],
      );
      state.lists.missing = 'missing.allowed';
      report.urls = allowed.count;
      if (allowed.skipped > 0) report.skipped = { ...report.skipped, robots: allowed.skipped };
      if (allowed.count === 0) return { kind: 'skipped', reason: `robots.txt disallows all ${diff.count} URLs left to scrape` };
      if (robotsIgnoreRequested(config)) report.reason = 'ignoreRobotsTxt not in effect: no crawl carrying it was accepted';
    }
  }

  const batch = config.batch ?? {};
  const wanted = report.urls ?? 0;
  const fit = state.activeJob
    ? { kind: 'run' as const, units: wanted, allowance: Number.POSITIVE_INFINITY, tight: false }
    : await fitJob(pipeline, 'batch: URLs', wanted, creditsPerPage(batch.scrapeOptions));
  if (fit.kind === 'skip') return { kind: 'skipped', reason: fit.reason };
  const count = fit.units;
  const governor = governorOf(pipeline);
  // Clamped: the URLs left may join the job later, when the budget is raised (batch-append.ts).
  // A governed batch comes in chunks, each its own job (batch-chunks.ts): nothing to append to.
  // A stage retried after a support repair starts a new job, never an append: the repair only
  // follows a failed stage and only changes scrapeOptions or maxConcurrency (DEFAULT_FIXABLE_FIELDS),
  // both of which an appended job ignores for its own; it adds no URL (the retry takes the same
  // list again); and a failed job refuses appendToId (409).
  if (!state.activeJob) {
    state.batchAppend = undefined;
    if (!governor && count < wanted) state.batchAppend = { wanted, taken: count, additions: 0 };
  }
  const perPage = creditsPerPage(batch.scrapeOptions);

  const options = { ...(freshScrapeOptions(pipeline, batch.scrapeOptions).scrapeOptions ?? {}), maxConcurrency: batch.maxConcurrency, webhook: webhookFor(pipeline) };
  if (governor) return runChunks(pipeline, governor, options, count, fit);
  // A job resumed after continue-as-new may be an appended one: runJob takes the active job as it is.
  const first = await runJob(pipeline, {
    stage: 'batch',
    kind: 'batch',
    allowance: fit.allowance,
    tight: fit.tight,
    perPage,
    recover: (lost) => recoveryBatch(pipeline, lost, count, perPage, options),
    start: (idempotencyKey) =>
      starts().startBatchScrape.executeWithOptions(
        { summary: `batch scrape ${count} URLs` },
        [{ urlsFrom: { runId: state.runId, list: state.lists.missing ?? 'missing', limit: count }, options, idempotencyKey }],
      ),
  });
  const last = state.batchAppend ? await appendAfterRaise(pipeline, { list: state.lists.missing ?? 'missing', perPage, options }, first) : first;
  // Asked for: the URLs given to the stage's jobs (all of them unless the budget clamped).
  if (last.kind === 'ok') await checkLimitCut(pipeline, 'batch', state.batchAppend?.taken ?? count, perPage);
  return last;
}

/**
 * Every crawl job of the run that may have stored pages: the stage's job, a job it recovered
 * (lost or stalled: its pages stay stored under its own id) and a job before a support retry.
 * Only the last was counted before, so the batch scraped and stored again what a lost job had.
 */
function crawlJobs(pipeline: PipelineRuntime): string[] {
  const { state } = pipeline;
  const crawl = state.reports.crawl;
  const ids = Object.entries(state.jobs).filter(([key]) => key.startsWith('crawl#')).map(([, id]) => id);
  for (const id of [crawl?.jobId, crawl?.recovered?.lostJob]) if (id) ids.push(id);
  return [...new Set(ids)];
}
