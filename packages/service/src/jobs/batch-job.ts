// Runs a batch scrape job: every URL once (duplicates included, as given), at most
// `concurrency` at a time. Unlike crawl, a page that answered 404/500 is a document
// with metadata.statusCode and metadata.error (contract notes "Batch scrape"): it is
// in `data`, counts as completed and is charged; only engine failures go to /errors.
import { completeJob } from './lifecycle.js';
import { attemptPage, NO_CREDIT_MESSAGE, recordDocument, recordFailure } from './pages.js';
import type { JobsRuntime } from './runtime.js';
import type { Job } from './types.js';

/** A running (or finished) batch's URL queue; `appendToId` adds to it. */
interface BatchQueue {
  urls: string[];
  next: number;
  active: number;
  workers: number;
  concurrency: number;
}

const queues = new WeakMap<Job, BatchQueue>();

export function startBatchJob(jobsRuntime: JobsRuntime, job: Job, urls: string[], concurrency: number): void {
  const queue: BatchQueue = { urls: [...urls], next: 0, active: 0, workers: 0, concurrency: Math.max(1, concurrency) };
  queues.set(job, queue);
  job.pending = () => queue.urls.length - queue.next + queue.active;
  topUpWorkers(jobsRuntime, job, queue);
}

/**
 * POST /v2/batch/scrape with `appendToId`: the URLs join the job's queue. A batch that already
 * completed is reopened (status scraping again, then completed once more with a new event); a
 * failed or cancelled one is not extended. Returns false when the job cannot take them.
 */
export function appendToBatchJob(jobsRuntime: JobsRuntime, job: Job, urls: string[]): boolean {
  const queue = queues.get(job);
  if (!queue || job.status === 'failed' || job.status === 'cancelled') return false;
  queue.urls.push(...urls);
  if (job.status === 'completed') {
    job.status = 'scraping';
    job.completedAt = undefined;
    job.pending = () => queue.urls.length - queue.next + queue.active;
  }
  job.changes.notify();
  topUpWorkers(jobsRuntime, job, queue);
  return true;
}

/** Starts workers up to the concurrency for the URLs waiting; the last one to stop completes the job. */
function topUpWorkers(jobsRuntime: JobsRuntime, job: Job, queue: BatchQueue): void {
  const worker = async (): Promise<void> => {
    while (queue.next < queue.urls.length && job.status === 'scraping') {
      const url = queue.urls[queue.next++];
      queue.active++;
      try {
        const attempt = await attemptPage(jobsRuntime, job, url, job.abort.signal);
        if (attempt.kind === 'ok') recordDocument(jobsRuntime, job, attempt);
        else if (attempt.kind === 'error') recordFailure(jobsRuntime, job, url, attempt);
        else if (attempt.kind === 'no-credit') recordFailure(jobsRuntime, job, url, { message: NO_CREDIT_MESSAGE, code: 'INSUFFICIENT_CREDITS' });
      } finally {
        queue.active--;
      }
    }
  };
  const waiting = queue.urls.length - queue.next;
  const add = Math.max(0, Math.min(queue.concurrency - queue.workers, waiting));
  for (let i = 0; i < add; i++) {
    queue.workers++;
    jobsRuntime.launch(worker().finally(() => {
      queue.workers--;
      if (queue.workers === 0 && queue.next >= queue.urls.length) completeJob(jobsRuntime, job);
    }));
  }
}
