// Runs a batch scrape job: every URL once (duplicates included, as given), at most
// `concurrency` at a time. Unlike crawl, a page that answered 404/500 is a document
// with metadata.statusCode and metadata.error (contract notes "Batch scrape"): it is
// in `data`, counts as completed and is charged; only engine failures go to /errors.
import { completeJob } from './lifecycle.js';
import { attemptPage, NO_CREDIT_MESSAGE, recordDocument, recordFailure } from './pages.js';
import type { JobsRuntime } from './runtime.js';
import type { Job } from './types.js';

export function startBatchJob(jobsRuntime: JobsRuntime, job: Job, urls: string[], concurrency: number): void {
  let next = 0;
  let active = 0;
  job.pending = () => urls.length - next + active;

  const worker = async (): Promise<void> => {
    while (next < urls.length && job.status === 'scraping') {
      const url = urls[next++];
      active++;
      try {
        const attempt = await attemptPage(jobsRuntime, job, url, job.abort.signal);
        if (attempt.kind === 'ok') recordDocument(jobsRuntime, job, attempt);
        else if (attempt.kind === 'error') recordFailure(jobsRuntime, job, url, attempt);
        else if (attempt.kind === 'no-credit') recordFailure(jobsRuntime, job, url, { message: NO_CREDIT_MESSAGE, code: 'INSUFFICIENT_CREDITS' });
      } finally {
        active--;
      }
    }
  };

  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, urls.length)) }, () => worker());
  jobsRuntime.launch(Promise.all(workers).then(() => completeJob(jobsRuntime, job)));
}
