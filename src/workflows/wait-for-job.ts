// Waits for a crawl or batch job: webhook signals wake it at once, a poll with an adaptive
// interval always reconciles (deliveries can be lost), and the budget watch cancels a job
// whose own creditsUsed reaches what the run may still spend.
import { condition, workflowInfo } from '@temporalio/workflow';
import type { JobSummary } from '../activities/types.js';
import { cleanup, reads } from './activities.js';
import { deadlineOf, observeProgress, stallAfterMs, untilStalled } from './progress-rule.js';
import type { PipelineRuntime } from './runtime.js';
import type { ActiveJob } from './state.js';

export interface WaitOptions {
  /** Credits the job may use before it is cancelled; Infinity when unbounded. */
  allowance: () => number;
  /** Poll at the minimum interval (budget watch on a `stop` strategy). */
  tight: boolean;
  /** The job's end as someone else saw it (the follower): wakes the wait and answers for a poll. */
  ended?: () => JobSummary | undefined;
  /** The follower stopped (stored everything, handed back to a collect at the end, or failed). */
  followerDone?: () => boolean;
}

export type WaitOutcome =
  | { kind: 'done'; summary: JobSummary; stoppedForBudget: boolean }
  | { kind: 'continue-as-new'; stoppedForBudget: boolean }
  /** The job did not move for the stall time (progress-rule.ts): `summary` is the last read. */
  | { kind: 'stalled'; summary: JobSummary; stillForMs: number; stoppedForBudget: boolean }
  /** The run's deadline passed while the job ran. */
  | { kind: 'deadline'; stoppedForBudget: boolean };

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export async function waitForJob(pipeline: PipelineRuntime, job: ActiveJob, options: WaitOptions): Promise<WaitOutcome> {
  const polling = pipeline.state.config.polling ?? { minIntervalMs: 1_000, maxIntervalMs: 30_000 };
  let interval = polling.minIntervalMs;
  let stoppedForBudget = false;
  const followerDone = options.followerDone;
  // While a follower reads the job's status pages (it sees the end within its idle interval and
  // ends the wait through `ended`), the wait sends no status reads of its own except one every
  // `maxIntervalMs` to keep the progress fresh; webhook deliveries need no read either. Runs
  // without a budget watch only (a watch needs creditsUsed as it grows).
  let watching = followerDone !== undefined && !followerDone() && !options.tight && !Number.isFinite(options.allowance());
  const stallMs = stallAfterMs(pipeline.state.config, job.kind);
  const deadline = deadlineOf(pipeline.state);
  /** A wait no longer than the time left before the job would be stalled or the run's deadline. */
  const bounded = (ms: number): number =>
    Math.min(ms, untilStalled(job, stallMs, Date.now()), deadline === undefined ? Infinity : Math.max(1_000, deadline - Date.now()));
  for (;;) {
    if (deadline !== undefined && Date.now() >= deadline) return { kind: 'deadline', stoppedForBudget };
    if (watching && followerDone && !options.ended?.()) {
      if (workflowInfo().continueAsNewSuggested) return { kind: 'continue-as-new', stoppedForBudget };
      const woke = await condition(() => options.ended?.() !== undefined || followerDone() || pipeline.hasEvent(job.jobId), bounded(polling.maxIntervalMs));
      if (pipeline.hasEvent(job.jobId)) pipeline.takeEvents(job.jobId);
      // The follower stopped without the end (it handed back, or failed): the polls take over.
      if (followerDone() && !options.ended?.()) watching = false;
      // Woken: the end is in hand, or the polls take over; a webhook delivery alone waits on.
      if (woke) continue;
    }
    const summary = options.ended?.() ?? await reads.getJobSummary.executeWithOptions(
      { summary: `status ${job.kind} ${job.jobId}` },
      [{ kind: job.kind, jobId: job.jobId }],
    );
    const report = pipeline.report(job.stage);
    // Earlier jobs of the stage (an append that fell back to a new job, a lost job recovered) stay in its figures.
    const recovered = report.recovered;
    report.documents = summary.completed + (job.earlier?.documents ?? 0) + (recovered?.lostPages ?? 0);
    if (summary.total > 0) report.total = summary.total + (job.earlier ? job.earlier.documents + job.earlier.failures : 0);
    report.credits = Math.max(0, summary.creditsUsed) + (job.earlier?.credits ?? 0) + (recovered?.lostCredits ?? 0);
    job.creditsSeen = summary.creditsUsed >= 0 ? summary.creditsUsed : summary.completed; // -1: no billing
    if (TERMINAL.has(summary.status)) {
      report.progress = undefined;
      pipeline.publish();
      return { kind: 'done', summary, stoppedForBudget };
    }
    const stillForMs = observeProgress(job, report, summary, Date.now(), stallMs);
    pipeline.publish();
    if (stillForMs >= stallMs) {
      report.progress = undefined;
      return { kind: 'stalled', summary, stillForMs, stoppedForBudget };
    }

    if (!stoppedForBudget && summary.creditsUsed >= options.allowance()) {
      stoppedForBudget = true;
      await cleanup.cancelJob.executeWithOptions(
        { summary: `cancel ${job.kind} ${job.jobId}: budget reached` },
        [{ kind: job.kind, jobId: job.jobId }],
      );
      pipeline.state.credits.events.push(`${job.stage}: job ${job.jobId} cancelled at ${summary.creditsUsed} credits (budget)`);
      interval = polling.minIntervalMs;
      continue;
    }
    // Long waits hand over to a fresh run; the job id travels in the state.
    if (workflowInfo().continueAsNewSuggested) return { kind: 'continue-as-new', stoppedForBudget };
    if (watching) continue;

    const woke = await condition(() => pipeline.hasEvent(job.jobId) || options.ended?.() !== undefined, bounded(interval));
    if (woke) {
      if (pipeline.hasEvent(job.jobId)) pipeline.takeEvents(job.jobId);
      interval = polling.minIntervalMs;
    } else {
      interval = options.tight ? polling.minIntervalMs : Math.min(polling.maxIntervalMs, Math.round(interval * 1.6));
    }
  }
}
