// Creating, finishing and failing jobs.
import { setMaxListeners } from 'node:events';
import type { TeamConfig } from '../core/teams.js';
import type { WebhookSpec } from '../core/webhooks.js';
import { newJobId } from '../http/ids.js';
import { emitJobEvent } from './events.js';
import { ChangeNotifier } from './notifier.js';
import type { JobsRuntime } from './runtime.js';
import type { Job, JobKind } from './types.js';

export interface NewJob {
  kind: JobKind;
  team: TeamConfig;
  apiKey: string;
  url: string;
  options: Record<string, unknown>;
  scrapeOptions: Record<string, unknown>;
  zeroDataRetention: boolean;
  webhook?: WebhookSpec | string;
}

export function createJob(jobsRuntime: JobsRuntime, init: NewJob): Job {
  const createdAt = jobsRuntime.ctx.now();
  // Taken at the start, so a test can clear the fault at once and later jobs run normally.
  const stallAfterPages = jobsRuntime.ctx.faults.get(init.team.id).stallJobsAfterPages;
  const job: Job = {
    ...init,
    ...(stallAfterPages !== undefined ? { stallAfterPages } : {}),
    id: newJobId(createdAt),
    status: 'scraping',
    createdAt,
    documents: [],
    errors: [],
    robotsBlocked: [],
    creditsUsed: 0,
    pending: () => 0,
    purgedCount: 0,
    abort: new AbortController(),
    changes: new ChangeNotifier(),
  };
  // Every in-flight page listens on the job's signal (limiter wait, engine, fetches).
  setMaxListeners(0, job.abort.signal);
  jobsRuntime.store.add(job);
  jobsRuntime.ctx.activity.record({ id: job.id, teamId: job.team.id, endpoint: init.kind, createdAt, target: init.url });
  return job;
}

/** The job ran out of work: `completed` at once (the hosted service lags a few seconds). */
export function completeJob(jobsRuntime: JobsRuntime, job: Job): void {
  if (job.status !== 'scraping') return;
  job.status = 'completed';
  job.completedAt = jobsRuntime.ctx.now();
  job.pending = () => 0;
  job.changes.notify();
  emitJobEvent(jobsRuntime.ctx, job, 'completed', { success: true });
}

/** Kickoff failure (fault injection or a start error): the job exists and is failed at once. */
export function failJob(jobsRuntime: JobsRuntime, job: Job, error: string): void {
  if (job.status !== 'scraping') return;
  job.status = 'failed';
  job.error = error;
  job.completedAt = jobsRuntime.ctx.now();
  job.pending = () => 0;
  job.changes.notify();
  emitJobEvent(jobsRuntime.ctx, job, 'failed', { success: false, error });
}
