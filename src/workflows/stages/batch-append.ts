// A batch the budget clamped takes the URLs left when the budget is raised (waitForRaiseMs):
// they join the same job through appendToId, one idempotency key per addition, and the job is
// followed and collected again. A service without append gets a new job for them instead.
import { uuid4 } from '@temporalio/workflow';
import type { AppendBatchResult } from '../../activities/batch-append.js';
import type { CollectCursor, CollectResult } from '../../activities/types.js';
import { starts } from '../activities.js';
import { addNote, noteNotAvailable } from '../report-notes.js';
import type { PipelineRuntime } from '../runtime.js';
import type { ActiveJob } from '../state.js';
import { fitJob } from './fit-job.js';
import { runJob } from './job.js';
import type { StageOutcome } from './types.js';

export interface AppendPlan {
  list: string;
  perPage: number;
  options: Record<string, unknown>;
}

/** After the clamped job: while URLs are left and a raise makes room, add them; returns the last outcome. */
export async function appendAfterRaise(pipeline: PipelineRuntime, plan: AppendPlan, first: Collected): Promise<StageOutcome> {
  const { state } = pipeline;
  const progress = state.batchAppend;
  const report = pipeline.report('batch');
  let last: Collected = first;
  while (progress && last.kind === 'ok' && !stoppedAtBudget(report.reason) && progress.taken < progress.wanted && report.jobId) {
    const left = progress.wanted - progress.taken;
    const fit = await fitJob(pipeline, 'batch: URLs left', left, plan.perPage);
    if (fit.kind === 'skip') {
      state.credits.events.push(`batch: ${left} URLs left unscraped (${fit.reason})`);
      break;
    }
    progress.additions += 1;
    const n = progress.additions;
    const jobId = report.jobId;
    const urlsFrom = { runId: state.runId, list: plan.list, offset: progress.taken, limit: fit.units };
    const appended: AppendBatchResult = progress.noAppend
      ? { kind: 'not-available', reason: 'learned from an earlier addition' }
      : await starts().appendBatchScrape.executeWithOptions(
        { summary: `append ${fit.units} URLs to batch ${jobId}` },
        [{ jobId, urlsFrom, options: plan.options, idempotencyKey: key(state.idempotencyKeys, `batch+append#${n}`), totalBefore: report.total ?? progress.taken }],
      );
    const earlier = progress.earlier ?? { documents: 0, failures: 0, credits: 0 };
    let next: ActiveJob;
    if (appended.kind === 'appended') {
      state.jobs[`batch+append#${n}`] = jobId;
      state.credits.events.push(`batch: ${fit.units} URLs appended to job ${jobId} (budget raised)`);
      // The job's creditsUsed goes on from what the run already counted for it.
      const spentBefore = report.credits - earlier.credits;
      next = activeBatch(jobId, fit, spentBefore, progress.earlier);
      const from = last.collected?.jobId === jobId ? last.collected.cursor : undefined;
      // The follower goes on from where the last collection of the job ended: its results only
      // grow, the appended URLs after the ones already read (no status page fetched again).
      if (from) next.follow = { cursor: onwardFrom(from) };
    } else {
      // No append here (or the job cannot take more): the URLs go to a new job, as before append existed.
      if (appended.kind === 'not-available') {
        progress.noAppend = true;
        noteNotAvailable(report, 'batch append (appendToId)');
      } else {
        addNote(report, `batch append refused, URLs left went to a new job: ${appended.reason}`);
      }
      const newId = appended.kind === 'not-available' && appended.startedJobId
        ? appended.startedJobId
        : (await starts().startBatchScrape.executeWithOptions(
          { summary: `batch scrape ${fit.units} URLs left` },
          [{ urlsFrom, options: plan.options, idempotencyKey: key(state.idempotencyKeys, `batch+new#${n}`) }],
        )).jobId;
      state.jobs[`batch+new#${n}`] = newId;
      state.credits.events.push(`batch: ${fit.units} URLs left started as job ${newId} (budget raised)`);
      progress.earlier = { documents: report.documents ?? 0, failures: report.failures ?? 0, credits: report.credits };
      next = activeBatch(newId, fit, 0, progress.earlier);
    }
    progress.taken += fit.units;
    state.activeJob = next;
    // The job is the active one now: runJob follows and collects it (also after continue-as-new).
    last = await runJob(pipeline, { stage: 'batch', kind: 'batch', allowance: fit.allowance, tight: fit.tight, start: unreachable });
  }
  return last;
}

type Collected = StageOutcome & { collected?: CollectResult };

/**
 * Only the place: pages and written count per collection, and robots drops were already added
 * to the report by the collection that made them.
 */
function onwardFrom(cursor: CollectCursor): CollectCursor {
  return { skip: cursor.skip, pages: 0, written: 0 };
}

function activeBatch(jobId: string, fit: { allowance: number; tight: boolean }, spentBefore: number, earlier: ActiveJob['earlier']): ActiveJob {
  const allowance = Number.isFinite(fit.allowance) ? spentBefore + fit.allowance : null;
  return { kind: 'batch', stage: 'batch', jobId, allowance, tight: fit.tight, ...(spentBefore > 0 ? { spentBefore } : {}), ...(earlier ? { earlier } : {}) };
}

function stoppedAtBudget(reason: string | undefined): boolean {
  return reason?.startsWith('cancelled at the budget') === true;
}

function unreachable(): never {
  throw new Error('batch append: the job is already active, nothing to start');
}

function key(keys: Record<string, string>, name: string): string {
  keys[name] ??= uuid4();
  return keys[name];
}
