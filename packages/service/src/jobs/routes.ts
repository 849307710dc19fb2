// GET status, DELETE (cancel) and GET errors of crawl and batch scrape jobs.
import { jobStatusQuerySchema, DEFAULT_STATUS_PAGE_ITEMS } from 'webdata-contract';
import type { CancelJobResponse, JobErrorsResponse, JobStatusResponse } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { RouteGroup, RouteRequest, RouteResponse, Router } from '../core/routes.js';
import { notFound } from '../http/errors.js';
import { assertJobId, assertOwner, parseBody } from '../http/validate.js';
import { imitatesOss, ossJobNotFound } from '../imitate/firecrawl-oss.js';
import { ossStatusBody, statusBody } from './paging.js';
import { abortJob, type JobsRuntime } from './runtime.js';
import type { Job, JobKind } from './types.js';

/** How long a status request for a running job waits for pages beyond `skip` (long poll). */
const LONG_POLL_MS = 500;

export interface JobRouteNames {
  kind: JobKind;
  /** e.g. "/v2/crawl" */
  base: string;
  readGroup: RouteGroup;
  writeGroup: RouteGroup;
}

export function registerStatusRoutes(router: Router, jobsRuntime: JobsRuntime, names: JobRouteNames): void {
  router.add('GET', `${names.base}/:id`, (req) => getStatus(jobsRuntime, names, req), { group: names.readGroup });
  router.add('DELETE', `${names.base}/:id`, (req) => cancel(jobsRuntime, names, req), { group: names.writeGroup });
  router.add('GET', `${names.base}/:id/errors`, (req) => getErrors(jobsRuntime, names, req), { group: names.readGroup });
}

/**
 * The caller's job of this kind: 400 non-UUID, 404 unknown/expired/other kind, 403 other team.
 * Imitating the open-source server, the 404 is its `{ success:false, error }` (`{ error }`
 * when `bareNotFound`, as its cancel route answers).
 */
export function findJob(jobsRuntime: JobsRuntime, kind: JobKind, req: RouteRequest, bareNotFound = false): Job {
  const id = assertJobId(req.params.id);
  const job = jobsRuntime.store.get(id);
  if (!job || job.kind !== kind) throw imitatesOss(jobsRuntime.ctx.config) ? ossJobNotFound(!bareNotFound) : notFound();
  assertOwner(job.team.id, req.team);
  return job;
}

async function getStatus(jobsRuntime: JobsRuntime, names: JobRouteNames, req: RouteRequest): Promise<RouteResponse<JobStatusResponse>> {
  const job = findJob(jobsRuntime, names.kind, req);
  if (imitatesOss(jobsRuntime.ctx.config)) return { body: readOssStatus(jobsRuntime, names, req, job) };
  const query = parseBody(jobStatusQuerySchema, {
    ...(req.query.has('skip') ? { skip: req.query.get('skip') } : {}),
    ...(req.query.has('limit') ? { limit: req.query.get('limit') } : {}),
  });
  const skip = query.skip ?? 0;
  if (job.status === 'scraping' && skip >= job.documents.length) {
    await job.changes.wait(LONG_POLL_MS, req.signal);
  }
  const body = statusBody(jobsRuntime, job, {
    skip,
    limit: query.limit ?? DEFAULT_STATUS_PAGE_ITEMS,
    limitGiven: query.limit !== undefined,
    baseUrl: req.baseUrl,
    path: `${names.base}/${job.id}`,
  });
  // Zero data retention: once a finished job's last page has been read, drop the documents.
  if (job.zeroDataRetention && job.status !== 'scraping' && body.next === undefined && job.documents.length > 0) {
    job.purgedCount += job.documents.length;
    job.documents = [];
  }
  return { body };
}

/** The open-source server's status: `skip`/`limit` ignored, no long poll (ossStatusBody). */
function readOssStatus(jobsRuntime: JobsRuntime, names: JobRouteNames, req: RouteRequest, job: Job): JobStatusResponse {
  const body = ossStatusBody(jobsRuntime, job, { baseUrl: req.baseUrl, path: `${names.base}/${job.id}` });
  if (job.zeroDataRetention && job.status !== 'scraping' && job.documents.length > 0) {
    job.purgedCount += job.documents.length;
    job.documents = [];
  }
  return body;
}

function cancel(jobsRuntime: JobsRuntime, names: JobRouteNames, req: RouteRequest): RouteResponse<CancelJobResponse | { status: 'cancelled' }> {
  if (imitatesOss(jobsRuntime.ctx.config)) {
    // That server marks any job cancelled, finished or not, and answers without `success`.
    const job = findJob(jobsRuntime, names.kind, req, true);
    if (job.status === 'scraping') abortJob(job, 'cancelled', undefined, jobsRuntime.ctx.now());
    else job.status = 'cancelled';
    return { body: { status: 'cancelled' } };
  }
  const job = findJob(jobsRuntime, names.kind, req);
  if (job.status === 'completed' || job.status === 'failed') {
    throw new HttpError(409, `Job already ${job.status}: it cannot be cancelled`, { code: 'JOB_FINISHED' });
  }
  abortJob(job, 'cancelled', undefined, jobsRuntime.ctx.now());
  return { body: { success: true, status: 'cancelled' } };
}

function getErrors(jobsRuntime: JobsRuntime, names: JobRouteNames, req: RouteRequest): RouteResponse<JobErrorsResponse> {
  const job = findJob(jobsRuntime, names.kind, req);
  return { body: { success: true, errors: job.errors, robotsBlocked: job.robotsBlocked } };
}
