// Waits for a crawl or batch job: webhook signals wake it at once, a poll with an adaptive
// interval always reconciles (deliveries can be lost), and the budget watch cancels a job
// whose own creditsUsed reaches what the run may still spend.
import { condition, workflowInfo } from '@temporalio/workflow';
import type { JobSummary } from '../activities/types.js';
import { cleanup, reads } from './activities.js';
import type { PipelineRuntime } from './runtime.js';
import type { ActiveJob } from './state.js';

export interface WaitOptions {
  /** Credits the job may use before it is cancelled; Infinity when unbounded. */
  allowance: () => number;
  /** Poll at the minimum interval (budget watch on a `stop` strategy). */
  tight: boolean;
  /** The job's end as someone else saw it (the follower): wakes the wait and answers for a poll. */
  ended?: () => JobSummary | undefined;
}

export type WaitOutcome =
  | { kind: 'done'; summary: JobSummary; stoppedForBudget: boolean }
  | { kind: 'continue-as-new'; stoppedForBudget: boolean };

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export async function waitForJob(pipeline: PipelineRuntime, job: ActiveJob, options: WaitOptions): Promise<WaitOutcome> {
  const polling = pipeline.state.config.polling ?? { minIntervalMs: 1_000, maxIntervalMs: 30_000 };
  let interval = polling.minIntervalMs;
  let stoppedForBudget = false;
  for (;;) {
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
    pipeline.publish();
    if (TERMINAL.has(summary.status)) return { kind: 'done', summary, stoppedForBudget };

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

    const woke = await condition(() => pipeline.hasEvent(job.jobId) || options.ended?.() !== undefined, interval);
    if (woke) {
      if (pipeline.hasEvent(job.jobId)) pipeline.takeEvents(job.jobId);
      interval = polling.minIntervalMs;
    } else {
      interval = options.tight ? polling.minIntervalMs : Math.min(polling.maxIntervalMs, Math.round(interval * 1.6));
    }
  }
}
