// Job routes of the local service: crawl, batch scrape and map.
import type { Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import type { JobStore } from './store.js';
import { registerMapRoute } from '../map/routes.js';
import { registerBatchRoutes } from '../batch/routes.js';
import { registerCrawlRoutes } from '../crawl/routes.js';
import { JobsRuntime } from './runtime.js';
import { registerStatusRoutes } from './routes.js';

const runtimes = new WeakMap<ServiceContext, JobsRuntime>();

export function registerJobRoutes(router: Router, ctx: ServiceContext): void {
  const jobsRuntime = new JobsRuntime(ctx);
  runtimes.set(ctx, jobsRuntime);
  registerCrawlRoutes(router, jobsRuntime);
  registerStatusRoutes(router, jobsRuntime, { kind: 'crawl', base: '/v2/crawl', readGroup: 'crawl_status', writeGroup: 'crawl' });
  registerBatchRoutes(router, jobsRuntime);
  registerStatusRoutes(router, jobsRuntime, { kind: 'batch_scrape', base: '/v2/batch/scrape', readGroup: 'batch_status', writeGroup: 'batch_scrape' });
  registerMapRoute(router, jobsRuntime);
}

/** The jobs runtime of a service (the monitor module crawls with its fetcher and settings). */
export function jobsRuntimeOf(ctx: ServiceContext): JobsRuntime | undefined {
  return runtimes.get(ctx);
}

/** The crawl and batch jobs of a service (read-only use, e.g. support ask's job inspector). */
export function jobStoreOf(ctx: ServiceContext): Pick<JobStore, 'get' | 'running'> | undefined {
  return runtimes.get(ctx)?.store;
}

/**
 * GET /v2/team/queue-status from the team's crawl and batch jobs: pages queued or in flight,
 * those holding one of the team's concurrency slots, and the last job that completed.
 */
export function queueStatusOf(ctx: ServiceContext, team: { id: string; concurrency: number }) {
  const jobsRuntime = runtimes.get(ctx);
  const jobs = jobsRuntime?.store.all().filter((j) => j.team.id === team.id) ?? [];
  const jobsInQueue = jobs.filter((j) => j.status === 'scraping').reduce((n, j) => n + j.pending(), 0);
  const activeJobsInQueue = Math.min(jobsInQueue, jobsRuntime?.limiter.inUse(team.id) ?? 0);
  const last = Math.max(-Infinity, ...jobs.filter((j) => j.status === 'completed' && j.completedAt !== undefined).map((j) => j.completedAt!));
  return {
    jobsInQueue,
    activeJobsInQueue,
    waitingJobsInQueue: jobsInQueue - activeJobsInQueue,
    maxConcurrency: team.concurrency,
    mostRecentSuccess: Number.isFinite(last) ? new Date(last).toISOString() : null,
  };
}

export { JobsRuntime } from './runtime.js';
export type { Job, JobError, JobKind, JobStatus } from './types.js';
export { applyCrawlPrompt } from '../crawler/prompt.js';
