// The record of one crawl or batch scrape job, as the routes and runners share it.
import type { JobErrorEntry, JobStatus } from 'webdata-contract';
import type { PageDocument } from '../core/scrape.js';
import type { TeamConfig } from '../core/teams.js';
import type { WebhookSpec } from '../core/webhooks.js';
import type { ChangeNotifier } from './notifier.js';

export type JobKind = 'crawl' | 'batch_scrape';
export type { JobStatus };

/** A page failure as GET /v2/crawl/{id}/errors lists it; the service always sets `timestamp`. */
export type JobError = JobErrorEntry & { timestamp: string };

/** A page a job holds (not the storage package's StoredDocument): the document and its size. */
export interface JobDocument {
  readonly doc: PageDocument;
  /** Size of JSON.stringify(doc) in bytes, for the paging cut. */
  readonly bytes: number;
}

export interface Job {
  id: string;
  kind: JobKind;
  team: TeamConfig;
  apiKey: string;
  /** Crawl start URL; first URL of a batch. */
  url: string;
  status: JobStatus;
  /** Job-level failure message (kickoff failure). */
  error?: string;
  createdAt: number;
  completedAt?: number;
  /** Options as listed by GET /v2/crawl/active. */
  options: Record<string, unknown>;
  /** Scrape options handed to the engine for every page. */
  scrapeOptions: Record<string, unknown>;
  documents: JobDocument[];
  errors: JobError[];
  robotsBlocked: string[];
  creditsUsed: number;
  /** Pages queued or in flight; counted in `total` while the job runs. */
  pending: () => number;
  zeroDataRetention: boolean;
  /** Zero data retention: documents dropped after being read once (they still count as completed). */
  purgedCount: number;
  webhook?: WebhookSpec | string;
  /** Fault `stallJobsAfterPages` as it was when the job started: pages it may start before it stalls. */
  stallAfterPages?: number;
  abort: AbortController;
  /** Wakes status readers waiting for new pages. */
  changes: ChangeNotifier;
}

export function isRunning(job: Job): boolean {
  return job.status === 'scraping';
}
