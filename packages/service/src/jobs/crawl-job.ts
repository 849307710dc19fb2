// Runs a crawl job: the crawler decides which URLs to visit; each visit scrapes and
// records the page here. A page the engine returns with an HTTP error status (404,
// 500...) is a document with metadata.statusCode, as in a batch scrape; only engine
// failures (timeout, refused destination...) are listed under /errors.
import { Crawler, type CrawlSettings, type PageVisitor, type VisitResult } from '../crawler/crawler.js';
import { completeJob } from './lifecycle.js';
import { attemptPage, NO_CREDIT_MESSAGE, recordDocument, recordFailure } from './pages.js';
import type { JobsRuntime } from './runtime.js';
import type { Job } from './types.js';

export function startCrawlJob(jobsRuntime: JobsRuntime, job: Job, settings: CrawlSettings): void {
  const crawler = new Crawler(settings, crawlVisitor(jobsRuntime, job), job.abort.signal);
  job.pending = () => crawler.pending;
  jobsRuntime.launch(crawler.run().then(() => completeJob(jobsRuntime, job)));
}

function crawlVisitor(jobsRuntime: JobsRuntime, job: Job): PageVisitor {
  return {
    async visit(url, signal): Promise<VisitResult> {
      const attempt = await attemptPage(jobsRuntime, job, url, signal);
      switch (attempt.kind) {
        case 'aborted':
          return { status: 'stop' };
        case 'no-credit':
          recordFailure(jobsRuntime, job, url, { message: NO_CREDIT_MESSAGE, code: 'INSUFFICIENT_CREDITS' });
          return { status: 'stop' };
        case 'error':
          recordFailure(jobsRuntime, job, url, attempt);
          return { status: 'failed' };
        case 'ok': {
          // A page that answered 404 or 500 is a document like any other (metadata.statusCode,
          // metadata.error): it counts towards limit, is charged and its links are followed.
          const { metadata } = attempt.outcome.document;
          recordDocument(jobsRuntime, job, attempt);
          return { status: 'ok', links: attempt.outcome.discoveredLinks, finalUrl: metadata.url };
        }
      }
    },
    robotsBlocked(url) {
      job.robotsBlocked.push(url);
    },
    notAllowed(url, reason) {
      recordFailure(jobsRuntime, job, url, { message: reason, code: 'DESTINATION_NOT_ALLOWED' });
    },
  };
}
