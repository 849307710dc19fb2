// A lost job: the service answers 404 "Job not found" for a job this run started (it was
// restarted and kept its jobs in memory, or the results expired before they were collected).
// The stage keeps what the job stored, counts what it is estimated to have cost, and starts one
// new job for the rest (the stage's `recover`); only when that is impossible does it fail,
// naming the lost job.
import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { LostJobInventory } from '../../activities/lost-job.js';
import { lists, reads } from '../activities.js';
import { spend } from '../credit-guard.js';
import type { PipelineRuntime } from '../runtime.js';
import { failureText } from '../report-notes.js';
import { stillForText } from '../progress-rule.js';
import type { StalledJob } from '../state.js';
import type { JobPlan } from './job.js';
import type { StageOutcome } from './types.js';

/** What a stage does about its lost job. */
export type RecoveryStep =
  | { kind: 'start'; plan: JobPlan }
  | { kind: 'nothing'; why: string }
  | { kind: 'impossible'; reason: string };

/** The service no longer knows the job: a 404 answered for it (not a missing route: that is `not_available`). */
export function isJobLost(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'not_found';
}

type RunJob = (pipeline: PipelineRuntime, plan: JobPlan) => Promise<StageOutcome>;

/**
 * Why the stage starts a job for the rest: the job was lost (404), or it stalled (stood still
 * for the stall time, then cancelled and collected). `seen`: its last known creditsUsed;
 * `billed`: what the service answered for it once stopped (a stalled job it still knows).
 */
export type JobLoss =
  | { kind: 'lost'; err: unknown; seen: number }
  | { kind: 'stalled'; seen: number; billed?: number; err?: unknown; stalled: StalledJob };

/**
 * Called with the lost or stalled job still the active one and its follower stopped. `runJob`
 * is passed in (job.ts imports this file) to run the new job exactly like the first.
 */
export async function recoverJob(pipeline: PipelineRuntime, plan: JobPlan, jobId: string, loss: JobLoss, runJob: RunJob): Promise<StageOutcome> {
  const { state } = pipeline;
  const report = pipeline.report(plan.stage);
  const inventory: LostJobInventory = await lists.lostJobInventory.executeWithOptions(
    { summary: `what ${loss.kind} ${plan.kind} ${jobId} stored` },
    [{ runId: state.runId, jobId }],
  );
  state.activeJob = undefined;
  report.progress = undefined;
  const perPage = plan.perPage ?? 1;
  const billed = loss.kind === 'stalled' ? loss.billed : undefined;
  // A job the service still answers for costs what it says. Otherwise it can no longer say: at
  // least what it was last seen to use, and at least the price of every page it stored (pages
  // scraped but never collected are unknown).
  const lostCredits = billed ?? Math.max(loss.seen, inventory.documents * perPage);
  spend(state.credits, plan.stage, lostCredits);
  if (billed === undefined) {
    const basis = lostCredits === loss.seen && loss.seen > 0 ? `its last status (${loss.seen} credits used)` : `its ${inventory.documents} stored pages at ${perPage} credits each`;
    (state.credits.estimated ??= []).push(`${plan.stage}: job ${jobId} ${loss.kind}; ${lostCredits} credits estimated from ${basis}`);
  }
  if (loss.kind === 'stalled') {
    report.stalled = { ...loss.stalled, stored: inventory.documents };
  }
  const why = loss.kind === 'lost'
    ? `${plan.kind} job ${jobId} lost (${failureText(loss.err)})`
    : `${plan.kind} job ${jobId} stalled (no progress for ${stillForText(loss.stalled.stillForMs)} at ${loss.stalled.completed}/${loss.stalled.total}; cancel: ${loss.stalled.cancel})`;

  // A stage's figures so far: an earlier lost job of the stage (this one was its recovery).
  const earlier = report.recovered;
  const fail = (reason: string): StageOutcome => {
    report.documents = (earlier?.lostPages ?? 0) + inventory.documents;
    report.failures = inventory.failures;
    report.credits = (earlier?.lostCredits ?? 0) + lostCredits;
    if (earlier) earlier.pages = inventory.documents;
    pipeline.publish();
    return { kind: 'failed', reason: `${why}: ${reason}`, jobId };
  };
  if (earlier) return fail(`it was recovering ${earlier.why ?? 'lost'} job ${earlier.lostJob}; a stage recovers once`);
  if (!plan.recover) return fail('this stage cannot start a job for the rest');

  const step = await plan.recover(inventory);
  if (step.kind === 'impossible') return fail(`not recovered: ${step.reason}`);
  report.recovered = { lostJob: jobId, why: loss.kind, pages: 0, lostPages: inventory.documents, lostCredits, creditsEstimated: billed === undefined };
  if (step.kind === 'nothing') {
    report.documents = inventory.documents;
    report.failures = inventory.failures;
    report.credits = lostCredits;
    report.reason = `${why}; no new job: ${step.why}`;
    pipeline.publish();
    return { kind: 'ok' };
  }
  pipeline.publish();
  try {
    const outcome = await runJob(pipeline, { ...step.plan, recover: undefined });
    if (billed !== undefined) await billedSinceCancel(pipeline, plan, jobId, billed);
    if (outcome.kind === 'failed') return { ...outcome, reason: `${why}; the job recovering it failed: ${outcome.reason}` };
    return outcome;
  } catch (e) {
    // The route refused the new job (a 402, a 400...): the stage fails, naming the lost job.
    if (isCancellation(e) || !(e instanceof ActivityFailure)) throw e;
    if (!report.recovered.newJob) {
      // No new job started: nothing was recovered, the figures are the lost job's.
      report.recovered = undefined;
      report.jobId = jobId;
      report.documents = inventory.documents;
      report.failures = inventory.failures;
      report.credits = lostCredits;
    }
    return { kind: 'failed', reason: `${why}; the job recovering it could not run: ${failureText(e)}`, jobId };
  }
}

/**
 * A stalled job's bill read again once its recovery ended: a server may go on scraping a
 * cancelled job's queued pages for a while (the open-source server's batch did, 12 credits at the
 * cancel and 19 a few seconds later), and what it billed counts in the run's total.
 */
async function billedSinceCancel(pipeline: PipelineRuntime, plan: JobPlan, jobId: string, billed: number): Promise<void> {
  const { state } = pipeline;
  const report = pipeline.report(plan.stage);
  const last = await reads.getJobSummary
    .executeWithOptions({ summary: `credits ${plan.kind} ${jobId} used since it was cancelled` }, [{ kind: plan.kind, jobId }])
    .catch((e: unknown) => {
      if (isCancellation(e)) throw e;
      return undefined;
    });
  const more = last && last.creditsUsed > billed ? last.creditsUsed - billed : 0;
  if (more === 0 || !report.recovered) return;
  spend(state.credits, plan.stage, more);
  report.credits += more;
  report.recovered.lostCredits += more;
  pipeline.publish();
}
