// The status page of a job: `skip`/`limit` items, cut so the serialized answer stays
// under the byte limit (the item that would cross it waits for the next page, unless
// it is the only one), and `next` while more data exists or the job still runs.
import type { JobStatusResponse } from 'webdata-contract';
import type { JobsRuntime } from './runtime.js';
import type { Job, JobDocument } from './types.js';

/** Room kept for the envelope (status, counts, dates, next URL) around `data`. */
const ENVELOPE_BYTES = 2048;

/** Number of items from `skip` that fit in `limit` items and `byteLimit` bytes; ≥ 1 when any remain. */
export function fitItems(docs: ReadonlyArray<JobDocument>, skip: number, limit: number, byteLimit: number): number {
  let bytes = ENVELOPE_BYTES;
  let count = 0;
  for (let i = skip; i < docs.length && count < limit; i++) {
    bytes += docs[i].bytes + 1; // +1: the comma between items
    if (bytes > byteLimit && count > 0) break;
    count++;
  }
  return count;
}

export interface PageRequest {
  skip: number;
  limit: number;
  /** Echoed into `next` when the client chose it. */
  limitGiven: boolean;
  baseUrl: string;
  /** e.g. "/v2/crawl/<id>" */
  path: string;
}

export function statusBody(jobsRuntime: JobsRuntime, job: Job, page: PageRequest): JobStatusResponse {
  const docs = job.documents;
  const count = fitItems(docs, page.skip, page.limit, jobsRuntime.ctx.config.pageByteLimit);
  const data = docs.slice(page.skip, page.skip + count).map((d) => d.doc);
  const completed = job.purgedCount + docs.length;
  const total = completed + job.pending();
  // A running job always has a `next` (possibly the same skip): more pages may come.
  const returnedTo = page.skip + count;
  let next: string | undefined;
  if (job.status === 'scraping' || docs.length > returnedTo) {
    const query = new URLSearchParams({ skip: String(returnedTo) });
    if (page.limitGiven) query.set('limit', String(page.limit));
    next = `${page.baseUrl}${page.path}?${query.toString()}`;
  }
  // Members in the documented order: counts, error?, next?, data, dates.
  return {
    success: job.status !== 'failed',
    status: job.status,
    total,
    completed,
    creditsUsed: job.creditsUsed,
    expiresAt: new Date(jobsRuntime.store.expiresAt(job)).toISOString(),
    ...(job.status === 'failed' && job.error !== undefined ? { error: job.error } : {}),
    ...(next !== undefined ? { next } : {}),
    data,
    createdAt: new Date(job.createdAt).toISOString(),
    ...(job.completedAt !== undefined ? { completedAt: new Date(job.completedAt).toISOString() } : {}),
  };
}

/**
 * The status as the open-source server answered it (contract-notes "Observed on the
 * open-source server"): `skip` and `limit` are ignored. While the job runs, `data` is empty
 * and `next` is `?skip=0&limit=1`; once it has ended, `data` holds every document and
 * `next` is absent. No byte limit cuts the answer.
 */
export function ossStatusBody(jobsRuntime: JobsRuntime, job: Job, page: Pick<PageRequest, 'baseUrl' | 'path'>): JobStatusResponse {
  const running = job.status === 'scraping';
  const completed = job.purgedCount + job.documents.length;
  return {
    success: job.status !== 'failed',
    status: job.status,
    total: completed + job.pending(),
    completed,
    creditsUsed: job.creditsUsed,
    expiresAt: new Date(jobsRuntime.store.expiresAt(job)).toISOString(),
    ...(job.status === 'failed' && job.error !== undefined ? { error: job.error } : {}),
    ...(running ? { next: `${page.baseUrl}${page.path}?skip=0&limit=1` } : {}),
    data: running ? [] : job.documents.map((d) => d.doc),
    createdAt: new Date(job.createdAt).toISOString(),
    ...(job.completedAt !== undefined ? { completedAt: new Date(job.completedAt).toISOString() } : {}),
  };
}
