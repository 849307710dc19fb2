// What every job start shares: idempotency, kickoff faults, the started event and the
// answer `{ success, id, url }` (dropped on the wire when a fault says so).
import type { BatchScrapeStartResponse, CrawlStartResponse } from 'webdata-contract';
import type { RouteRequest, RouteResponse } from '../core/routes.js';
import { emitJobEvent } from './events.js';
import { imitatesOss, ossCrawlIdempotency } from '../imitate/firecrawl-oss.js';
import { readIdempotencyKey } from './idempotency.js';
import { assertModelFormatsServed } from '../scrape/model-formats.js';
import { createJob, failJob, type NewJob } from './lifecycle.js';
import type { JobsRuntime } from './runtime.js';
import type { Job } from './types.js';

export const KICKOFF_FAULT_MESSAGE = 'Job failed at kickoff (injected fault: failKickoffPattern)';

/**
 * Reads and checks the idempotency key; call before any await that precedes createJob's caller.
 * Imitating the open-source server, crawl keys fail as they do there and none is remembered.
 */
export function checkIdempotency(jobsRuntime: JobsRuntime, req: RouteRequest): string | undefined {
  if (imitatesOss(jobsRuntime.ctx.config)) {
    ossCrawlIdempotency(req.headers);
    return undefined;
  }
  const key = readIdempotencyKey(req.headers);
  jobsRuntime.idempotency.assertUnused(req.team.id, key, jobsRuntime.ctx.now());
  return key;
}

/**
 * Creates the job and decides its start: `run` is called unless a kickoff fault fails
 * the job at once. Synchronous from the idempotency check to the key being taken, so
 * two requests with one key cannot both start a job.
 */
export function startJob(
  jobsRuntime: JobsRuntime,
  req: RouteRequest,
  init: NewJob,
  kickoffUrls: string[],
  run: (job: Job) => void,
  extra: Pick<BatchScrapeStartResponse, 'invalidURLs'> = {},
): RouteResponse<CrawlStartResponse | BatchScrapeStartResponse> {
  // Model formats without a model would fail every page: refused before the job exists.
  assertModelFormatsServed(init.scrapeOptions);
  // The open-source server's batch scrape ignores the key (the same key twice starts two jobs).
  const key = init.kind === 'batch_scrape' && imitatesOss(jobsRuntime.ctx.config) ? undefined : checkIdempotency(jobsRuntime, req);
  const job = createJob(jobsRuntime, init);
  jobsRuntime.idempotency.remember(req.team.id, key, job.id, job.createdAt);
  if (kickoffUrls.some((u) => jobsRuntime.ctx.faults.failsKickoff(req.team.id, u))) {
    failJob(jobsRuntime, job, KICKOFF_FAULT_MESSAGE);
  } else {
    emitJobEvent(jobsRuntime.ctx, job, 'started', { success: true });
    run(job);
  }
  const path = init.kind === 'crawl' ? '/v2/crawl' : '/v2/batch/scrape';
  const response: RouteResponse<CrawlStartResponse | BatchScrapeStartResponse> = { body: { success: true, id: job.id, url: `${req.baseUrl}${path}/${job.id}`, ...extra } };
  if (jobsRuntime.ctx.faults.takeDroppedStartResponse(req.team.id)) response.dropConnection = true;
  return response;
}
