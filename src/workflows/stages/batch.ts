// batch: scrape the selected URLs the crawl did not return (or all selected URLs in batch mode).
import { reads, starts } from '../activities.js';
import { awaitCredits, creditsLeft } from '../budget.js';
import { creditsPerPage, fitUnits } from '../credit-guard.js';
import type { PipelineRuntime } from '../runtime.js';
import { webhookFor } from './crawl.js';
import { runJob } from './job.js';
import type { StageOutcome } from './types.js';

export async function runBatch(rt: PipelineRuntime): Promise<StageOutcome> {
  const { state } = rt;
  const { config } = state;
  const report = rt.report('batch');
  if (!state.activeJob) {
    const source = config.mode === 'batch' ? state.lists.selected ?? state.lists.mapped : state.lists.selected;
    if (!source) {
      return config.mode === 'batch'
        ? { kind: 'skipped', reason: 'needs mapped or selected URLs' }
        : { kind: 'skipped', reason: 'no selection to complete (select stage off)' };
    }
    const crawlJob = state.reports.crawl?.jobId;
    const diff = await reads.diffUrls.executeWithOptions(
      { summary: config.mode === 'batch' ? `batch list from ${source}` : `URLs the crawl missed` },
      [{ runId: state.runId, fromList: source, coveredByJobs: config.mode === 'batch' || !crawlJob ? [] : [crawlJob], toList: 'missing' }],
    );
    state.lists.missing = 'missing';
    report.urls = diff.count;
    if (diff.count === 0) return { kind: 'skipped', reason: 'the crawl returned every selected URL' };
  }

  const batch = config.batch ?? {};
  const perPage = creditsPerPage(batch.scrapeOptions);
  const strategy = config.budget?.strategy ?? 'clamp';
  let count = report.urls ?? 0;
  let allowance = Number.POSITIVE_INFINITY;
  if (!state.activeJob && (state.credits.budget !== null || config.budget?.monthlyCap !== undefined)) {
    if (!(await awaitCredits(rt, perPage))) return { kind: 'skipped', reason: `budget: ${perPage} credits needed for one page` };
    const left = await creditsLeft(rt);
    allowance = left;
    if (strategy === 'clamp') {
      const fit = fitUnits(count, perPage, left);
      if (fit.kind === 'none') return { kind: 'skipped', reason: 'budget: nothing left' };
      if (fit.kind === 'clamped') {
        state.credits.events.push(`batch: ${fit.from} URLs trimmed to ${fit.units} (budget)`);
        count = fit.units;
      }
    }
  }

  const options = { ...(batch.scrapeOptions ?? {}), maxConcurrency: batch.maxConcurrency, webhook: webhookFor(rt) };
  return runJob(rt, {
    stage: 'batch',
    kind: 'batch',
    allowance,
    tight: strategy === 'stop' && Number.isFinite(allowance),
    start: (idempotencyKey) =>
      starts.startBatchScrape.executeWithOptions(
        { summary: `batch scrape ${count} URLs` },
        [{ urlsFrom: { runId: state.runId, list: 'missing', limit: count }, options, idempotencyKey }],
      ),
  });
}
