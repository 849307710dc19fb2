// A lost job: the service answers 404 "Job not found" for a job this run started (it was
// restarted and kept its jobs in memory, or the results expired before they were collected).
// The stage keeps what the job stored, counts what it is estimated to have cost, and starts one
// new job for the rest (the stage's `recover`); only when that is impossible does it fail,
// naming the lost job.
import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { LostJobInventory } from '../../activities/lost-job.js';
import { lists } from '../activities.js';
import { spend } from '../credit-guard.js';
import type { PipelineRuntime } from '../runtime.js';
import { failureText } from '../report-notes.js';
import type { JobPlan } from './job.js';
import type { StageOutcome } from './types.js';

/** Runs recorded before it failed the stage at a lost job, keeping the last status read's figures. */
export const LOST_JOB_RECOVERY = 'lost-job-recovery';

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
 * Called with the lost job still the active one and its follower stopped. `runJob` is passed
 * in (job.ts imports this file) to run the new job exactly like the first.
 */
export async function recoverLostJob(pipeline: PipelineRuntime, plan: JobPlan, jobId: string, err: unknown, runJob: RunJob): Promise<StageOutcome> {
  const { state } = pipeline;
  const report = pipeline.report(plan.stage);
  const active = state.activeJob;
  const inventory: LostJobInventory = await lists.lostJobInventory.executeWithOptions(
    { summary: `what lost ${plan.kind} ${jobId} stored` },
    [{ runId: state.runId, jobId }],
  );
  state.activeJob = undefined;
  // The service can no longer say what the job cost: at least what it was seen to use, and at
  // least the price of every page it stored (pages scraped but never collected are unknown).
  const seen = active?.creditsSeen ?? 0;
  const perPage = plan.perPage ?? 1;
  const lostCredits = Math.max(seen, inventory.documents * perPage);
  spend(state.credits, plan.stage, lostCredits);
  const basis = lostCredits === seen && seen > 0 ? `its last status (${seen} credits used)` : `its ${inventory.documents} stored pages at ${perPage} credits each`;
  (state.credits.estimated ??= []).push(`${plan.stage}: job ${jobId} lost; ${lostCredits} credits estimated from ${basis}`);
  const why = `${plan.kind} job ${jobId} lost (${failureText(err)})`;

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
  if (earlier) return fail(`it was recovering lost job ${earlier.lostJob}; a stage recovers once`);
  if (!plan.recover) return fail('this stage cannot start a job for the rest');

  const step = await plan.recover(inventory);
  if (step.kind === 'impossible') return fail(`not recovered: ${step.reason}`);
  report.recovered = { lostJob: jobId, pages: 0, lostPages: inventory.documents, lostCredits, creditsEstimated: true };
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
