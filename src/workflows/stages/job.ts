// The shared life of a crawl or batch job inside a stage: start it once (idempotency key kept
// in state), wait for it, collect its results into the store, and cancel it on cancellation.
import { CancellationScope, condition, isCancellation, log, uuid4 } from '@temporalio/workflow';
import type { LostJobInventory } from '../../activities/lost-job.js';
import type { CollectResult, JobKind, JobSummary, StartJobResult } from '../../activities/types.js';
import { cleanup, collectors, lists, reads } from '../activities.js';
import { spend } from '../credit-guard.js';
import type { StageName } from '../input.js';
import type { PipelineRuntime } from '../runtime.js';
import { addNote, failureText, noteNotAvailable } from '../report-notes.js';
import { stillForText } from '../progress-rule.js';
import type { ActiveJob } from '../state.js';
import { waitForJob } from '../wait-for-job.js';
import { startFollower, type Follower } from './follow.js';
import { isJobLost, recoverJob, type JobLoss, type RecoveryStep } from './lost-job.js';
import { robotsCheck } from './robots.js';
import type { StageOutcome } from './types.js';

/** How long a stalled job's follower may take to store the tail once the job is cancelled. */
const STALLED_COLLECT_WAIT = '2 minutes';

export interface JobPlan {
  stage: StageName;
  kind: JobKind;
  /** Starts the job with the given idempotency key. */
  start: (idempotencyKey: string) => Promise<StartJobResult>;
  /** Credits the job may use before it is cancelled. */
  allowance: number;
  tight: boolean;
  /** Idempotency key name (default `<stage>#<attempt>`); also the job's name in `state.jobs` (a governed batch's chunks each have one). */
  keyName?: string;
  /** Credits a page costs: a lost job's credits are estimated from its stored pages. */
  perPage?: number;
  /** Jobs whose stored pages the collector leaves out (a recovery job's lost job). */
  skipStoredOf?: string[];
  /** A crawl's page limit: its collector reads the team's credits when the job ends short of it (limit-cut.ts). */
  limitCut?: { requested: number };
  /** One new job for what a lost job did not store (see lost-job.ts); absent: the stage fails. */
  recover?: (lost: LostJobInventory) => Promise<RecoveryStep>;
}

export async function runJob(pipeline: PipelineRuntime, plan: JobPlan): Promise<StageOutcome & { collected?: CollectResult }> {
  const { state } = pipeline;
  const report = pipeline.report(plan.stage);
  let jobId: string;
  if (state.activeJob && state.activeJob.stage === plan.stage) {
    jobId = state.activeJob.jobId; // resumed after continue-as-new
  } else {
    const attempt = state.retried.includes(plan.stage) ? 2 : 1;
    const keyName = plan.keyName ?? `${plan.stage}#${attempt}`;
    state.idempotencyKeys[keyName] ??= uuid4();
    const started = await plan.start(state.idempotencyKeys[keyName]);
    jobId = started.jobId;
    state.activeJob = {
      kind: plan.kind,
      stage: plan.stage,
      jobId,
      allowance: Number.isFinite(plan.allowance) ? plan.allowance : null,
      tight: plan.tight,
      ...(plan.skipStoredOf?.length ? { skipStoredOf: plan.skipStoredOf } : {}),
    };
    state.jobs[keyName] = jobId;
    if (started.idempotency === 'unsupported') {
      addNote(report, 'started without idempotency key: this service refuses it (500 to a keyed start)');
    }
  }
  report.jobId = jobId;
  // A lost job of this stage before this one: its pages and credits stay in the stage's figures.
  const recovered = report.recovered;
  if (recovered && recovered.lostJob !== jobId) recovered.newJob = jobId;
  pipeline.publish();

  let follower: Follower | undefined;
  try {
    const active = state.activeJob as NonNullable<typeof state.activeJob>;
    // Pages are stored while the job runs (a follower beside the wait), not only after it ends;
    // documents robots.txt disallows are not stored (the service's scrape does not check).
    const followInput = { ...collectInput(pipeline, active), ...(plan.limitCut ? { limitCut: plan.limitCut } : {}) };
    follower = !active.follow?.atEnd ? startFollower(active, followInput) : undefined;
    const following = follower;
    let waited = await waitForJob(pipeline, active, {
      allowance: () => active.allowance ?? Number.POSITIVE_INFINITY,
      tight: active.tight,
      ...(following ? { ended: following.ended, followerDone: following.done } : {}),
    });
    if (waited.kind === 'continue-as-new') {
      await follower?.stop();
      const ended = following?.ended();
      // A follower that stored the job's last page while it was stopped keeps its result: the
      // next run would otherwise follow the job again and download every page a second time.
      if (!ended) return { kind: 'continue-as-new' };
      waited = { kind: 'done', summary: ended, stoppedForBudget: waited.stoppedForBudget };
    }
    if (waited.kind === 'stalled') {
      const stalled = await stopStalledJob(pipeline, plan, active, waited, follower);
      return await recoverJob(pipeline, plan, jobId, stalled, runJob);
    }
    if (waited.kind === 'deadline') {
      const cancel = await cancelAnswer(plan.kind, jobId, 'run deadline reached');
      state.deadline = { reachedAt: new Date(Date.now()).toISOString(), stage: plan.stage };
      await closeStoppedJob(pipeline, plan, jobId, follower);
      return { kind: 'failed', reason: `run deadline reached (deadlineMs ${state.config.deadlineMs}): ${plan.kind} job ${jobId} cancelled (${cancel}) with ${report.documents ?? 0} documents stored`, jobId };
    }

    const followed = follower ? await follower.result : undefined;
    if (active.follow?.atEnd) addNote(report, `collected when the job ended: this service ignores skip (${active.follow.atEnd})`);
    const atEnd = { ...followInput, ...(active.follow ? { cursor: active.follow.cursor } : {}) };
    const collected = followed ?? (plan.kind === 'crawl'
      ? await collectors.collectCrawl.executeWithOptions({ summary: `collect crawl ${jobId}` }, [atEnd])
      : await collectors.collectBatch.executeWithOptions({ summary: `collect batch ${jobId}` }, [atEnd]));
    state.activeJob = undefined;
    report.progress = undefined;
    const earlier = active.earlier;
    report.documents = collected.documents + (earlier?.documents ?? 0) + (recovered?.lostPages ?? 0);
    if (recovered) recovered.pages = collected.documents;
    report.failures = collected.failures + (earlier?.failures ?? 0);
    for (const what of collected.notAvailable ?? []) noteNotAvailable(report, what);
    report.ref = collected.ref;
    if (collected.skipped?.robots) report.skipped = { ...report.skipped, robots: (report.skipped?.robots ?? 0) + collected.skipped.robots };
    const credits = collected.creditsUsed >= 0 ? collected.creditsUsed : collected.documents; // -1: no billing
    report.credits = credits + (earlier?.credits ?? 0) + (recovered?.lostCredits ?? 0);
    // After an append the job's creditsUsed includes what its earlier pages were already counted for.
    spend(state.credits, plan.stage, credits - (active.spentBefore ?? 0));
    if (waited.stoppedForBudget) {
      report.reason = `cancelled at the budget after ${collected.documents} pages`;
      return { kind: 'ok', collected };
    }
    if (waited.summary.status === 'failed') {
      return { kind: 'failed', reason: waited.summary.error ?? `${plan.kind} job failed`, jobId, collected };
    }
    if (collected.documents === 0 && !recovered?.lostPages) {
      return { kind: 'failed', reason: `${plan.kind} job ${waited.summary.status} with 0 pages`, jobId, collected };
    }
    return { kind: 'ok', collected };
  } catch (err) {
    if (state.activeJob?.jobId === jobId && !isCancellation(err) && isJobLost(err)) {
      // Nothing more comes from the lost job: its follower ends before the store is read. Its
      // reads answer 404 too, so it ends by itself; cancelling it at once could cross its
      // failure on the way to the server (which then refuses the cancel as unknown).
      const following = follower;
      if (following && !following.done() && !(await condition(() => following.done(), '2 minutes'))) {
        await following.stop().catch(() => undefined);
      }
      const active = state.activeJob;
      return recoverJob(pipeline, plan, jobId, { kind: 'lost', err, seen: active.creditsSeen ?? 0 }, runJob);
    }
    if (isCancellation(err)) {
      // The run was cancelled: stop the job too, whatever happens to this scope.
      await CancellationScope.nonCancellable(() =>
        cleanup.cancelJob.executeWithOptions({ summary: `cancel ${plan.kind} ${jobId}: run cancelled` }, [{ kind: plan.kind, jobId }]),
      );
    }
    // The stage fails (or the run is cancelled): this job is no longer the one to resume.
    await closeStoppedJob(pipeline, plan, jobId, follower);
    throw err;
  }
}

/** What a collector of the job is given: the run, the robots check, the series, the pages to leave out. */
function collectInput(pipeline: PipelineRuntime, active: ActiveJob) {
  const { state } = pipeline;
  const robots = robotsCheck(pipeline);
  return {
    runId: state.runId,
    jobId: active.jobId,
    ...(robots ? { robots } : {}),
    ...(state.changes ? { changes: { previousRunId: state.changes.previousRunId } } : {}),
    ...(active.skipStoredOf ? { skipStoredOf: active.skipStoredOf } : {}),
  };
}

/** Cancels a job, tolerating a refusal: the answer as a word for the report. */
async function cancelAnswer(kind: JobKind, jobId: string, why: string): Promise<string> {
  try {
    const res = await cleanup.cancelJob.executeWithOptions({ summary: `cancel ${kind} ${jobId}: ${why}` }, [{ kind, jobId }]);
    return res.status;
  } catch (err) {
    if (isCancellation(err)) throw err;
    return `refused: ${failureText(err)}`;
  }
}

/**
 * A job the stage stops waiting on (it failed, the run was cancelled or reached its deadline):
 * what it spent counts in the run's total (the service charged it) and its figures come from
 * their sources. No longer the job to resume.
 */
async function closeStoppedJob(pipeline: PipelineRuntime, plan: JobPlan, jobId: string, follower: Follower | undefined): Promise<void> {
  const { state } = pipeline;
  const report = pipeline.report(plan.stage);
  const ending = state.activeJob?.jobId === jobId ? state.activeJob : undefined;
  if (!ending) return;
  const seen = ending.creditsSeen ?? 0;
  report.credits = seen + (ending.earlier?.credits ?? 0) + (report.recovered?.lostCredits ?? 0);
  spend(state.credits, plan.stage, seen - (ending.spentBefore ?? 0));
  state.activeJob = undefined;
  report.progress = undefined;
  // The stage reports the documents the store holds for it (the job's last `completed` lags what
  // the follower stored); its own failure is what the run reports: a store that cannot count
  // keeps the figures seen.
  await CancellationScope.nonCancellable(() => settleFigures(pipeline, plan, jobId, seen, follower, ending.earlier)).catch((e: unknown) => {
    log.warn('figures of a stopped job not read', { jobId, error: failureText(e) });
  });
}

/**
 * A job that stopped moving: cancelled (a refusal tolerated), then everything it holds collected
 * (its follower sees it end and stores the tail; else one collect), and its final bill read.
 * The stage then recovers what it did not store, like a lost job's.
 */
async function stopStalledJob(
  pipeline: PipelineRuntime, plan: JobPlan, active: ActiveJob, waited: { summary: JobSummary; stillForMs: number }, follower: Follower | undefined,
): Promise<JobLoss> {
  const { jobId } = active;
  const still = stillForText(waited.stillForMs);
  log.warn('job stalled', { stage: plan.stage, jobId, completed: waited.summary.completed, total: waited.summary.total, stillForMs: waited.stillForMs });
  addNote(pipeline.report(plan.stage), `${plan.kind} job ${jobId} stalled: no progress for ${still} at ${waited.summary.completed}/${waited.summary.total}`);
  const cancel = await cancelAnswer(plan.kind, jobId, `no progress for ${still}`);
  let lostErr: unknown;
  if (follower && !follower.done() && !(await condition(() => follower.done(), STALLED_COLLECT_WAIT))) {
    await follower.stop().catch(() => undefined);
  }
  const followed = follower ? await follower.result.catch((e: unknown) => { if (isCancellation(e)) throw e; lostErr = e; return undefined; }) : undefined;
  if (!followed && !follower?.lost()) {
    const input = { ...collectInput(pipeline, active), ...(active.follow ? { cursor: active.follow.cursor } : {}) };
    await (plan.kind === 'crawl'
      ? collectors.collectCrawl.executeWithOptions({ summary: `collect stalled crawl ${jobId}` }, [input])
      : collectors.collectBatch.executeWithOptions({ summary: `collect stalled batch ${jobId}` }, [input])
    ).catch((e: unknown) => { if (isCancellation(e)) throw e; lostErr = e; });
  }
  // The bill once it stopped: the service's own figure (absent if it no longer answers for the job).
  const last = await reads.getJobSummary
    .executeWithOptions({ summary: `credits ${plan.kind} ${jobId} used` }, [{ kind: plan.kind, jobId }])
    .catch((e: unknown) => { if (isCancellation(e)) throw e; lostErr ??= e; return undefined; });
  const seen = Math.max(active.creditsSeen ?? 0, waited.summary.creditsUsed);
  const billed = last && last.creditsUsed >= 0 ? last.creditsUsed : undefined;
  return {
    kind: 'stalled',
    seen,
    ...(billed !== undefined ? { billed } : {}),
    ...(lostErr && billed === undefined ? { err: lostErr } : {}),
    stalled: {
      jobId,
      completed: waited.summary.completed,
      total: waited.summary.total,
      stillForMs: waited.stillForMs,
      declaredAt: new Date(Date.now()).toISOString(),
      cancel,
      stored: 0,
    },
  };
}

/**
 * A failed or cancelled job's figures from their sources: the documents the store holds for it
 * (the last status read lags what the follower stored) and the service's own creditsUsed once
 * it stopped (the last read lags what it billed). A job the service no longer answers for keeps
 * the last figure seen.
 */
async function settleFigures(
  pipeline: PipelineRuntime, plan: JobPlan, jobId: string, seen: number, follower: Follower | undefined,
  earlierJobs?: { documents: number; failures: number },
): Promise<void> {
  const { state } = pipeline;
  const report = pipeline.report(plan.stage);
  const earlier = report.recovered;
  await follower?.stop().catch(() => undefined);
  const stored = await lists.storedCounts.executeWithOptions({ summary: `documents ${plan.kind} ${jobId} stored` }, [{ runId: state.runId, jobId }]);
  report.documents = stored.documents + (earlier?.lostPages ?? 0) + (earlierJobs?.documents ?? 0);
  report.failures = stored.failures + (earlierJobs?.failures ?? 0);
  if (earlier && earlier.lostJob !== jobId) earlier.pages = stored.documents;
  const last = await reads.getJobSummary
    .executeWithOptions({ summary: `credits ${plan.kind} ${jobId} used` }, [{ kind: plan.kind, jobId }])
    .catch(() => undefined);
  const billed = last && last.creditsUsed >= 0 ? last.creditsUsed : seen;
  if (billed > seen) {
    spend(state.credits, plan.stage, billed - seen);
    report.credits += billed - seen;
  }
  pipeline.publish();
}
