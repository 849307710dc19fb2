// Inputs and outputs of the pipeline's activities: small, serializable, no page content.
// Documents and link lists stay in the DocumentStore; these carry ids, counts and references.

import type { JobStatus } from 'webdata-contract';

export type JobKind = 'crawl' | 'batch';
export type { JobStatus };

/** A pointer into the document store, small enough for workflow history. */
export interface StoreReference {
  runId: string;
  jobId?: string;
  list?: string;
}

export interface StartJobResult {
  jobId: string;
  /** True when a lost response was recovered (409 on retry) instead of starting a new job. */
  recovered: boolean;
  invalidURLs?: number;
  /**
   * `unsupported`: the service refused the idempotency key (500 UNKNOWN_ERROR to a keyed start,
   * as the open-source server does), so the job was started without it; the run report says so.
   */
  idempotency?: 'unsupported';
}

export interface JobSummary {
  jobId: string;
  kind: JobKind;
  status: JobStatus;
  total: number;
  completed: number;
  creditsUsed: number;
  error?: string;
}

export interface CollectInput {
  runId: string;
  kind: JobKind;
  jobId: string;
  /** Items per status page. */
  pageSize?: number;
  /**
   * Drop documents whose URL (or final URL) the site's robots.txt disallows: they are recorded
   * as failures (code ROBOTS_BLOCKED), never stored. Absent: no check (ignoreRobotsTxt in effect).
   */
  robots?: { userAgent?: string };
  /**
   * A run of a series: compare each page with the series' previous completed run (null: the
   * first run, every page is new); unchanged pages are stored as stubs pointing at that copy.
   */
  changes?: { previousRunId: string | null };
  /** Start here when no attempt of this call heartbeated yet (handed over by a follower). */
  cursor?: CollectCursor;
  /**
   * Jobs of this run whose stored pages are not stored again (a job started to recover a lost
   * one may scrape a page the lost job stored, e.g. the crawl's start page): each page once.
   */
  skipStoredOf?: string[];
  /**
   * A crawl that asked for `requested` pages: when the job ends with fewer stored and failed,
   * the collector also reads the team's credits left (`CollectResult.teamCreditsLeft`), the fact
   * the stage's limit-cut check needs, so the workflow finishes without an activity of its own.
   */
  limitCut?: { requested: number };
}

/** Where a collector stands in a job's results; heartbeated, and carried in workflow state. */
export interface CollectCursor {
  /** Items of the job read so far (the next status page's `skip`). */
  skip: number;
  /** Status pages read. */
  pages: number;
  /** Documents written. */
  written: number;
  /** Documents dropped because robots.txt disallows them (robots check on). */
  robots?: number;
  /** The job's creditsUsed at the last status page read (its last known bill, if the job is lost). */
  creditsUsed?: number;
}

export interface FollowJobInput extends CollectInput {
  /** Override of the worker's slice length (tests). */
  sliceMs?: number;
}

/**
 * `done`: the job ended and every page is stored. `slice`: the call's time is up (or it was
 * asked to stop); call again with the cursor. `at-end`: this service ignores `skip`, so
 * following would download the same pages again and again; collect once when the job ends.
 */
export type FollowJobResult =
  | { kind: 'done'; collected: CollectResult; summary: JobSummary }
  | { kind: 'slice'; cursor: CollectCursor }
  | { kind: 'at-end'; cursor: CollectCursor; reason: string }
  /**
   * The service answered 404 for the job (restarted, or its results expired): what the follower
   * stored stays stored, nothing more will come, and `cursor.creditsUsed` is its last known bill.
   */
  | { kind: 'lost'; cursor: CollectCursor; error: string };

export interface CollectResult {
  jobId: string;
  kind: JobKind;
  status: JobStatus;
  /** Documents of this job in the store after the call (written now or before). */
  documents: number;
  /** Documents written by this call (0 on a replayed/resumed call that found them stored). */
  written: number;
  failures: number;
  /** Auxiliary routes this service lacks (`job errors`), so that part was not read; the data was. */
  notAvailable?: string[];
  creditsUsed: number;
  /** Status pages read. */
  pages: number;
  ref: StoreReference;
  /**
   * URLs not stored, by reason. `robots`: blocked by the job itself (the crawl's robotsBlocked)
   * plus documents the robots check dropped.
   */
  skipped?: { robots: number };
  /**
   * Where the collector stood when the job ended (`skip`: items read). A batch that URLs are
   * appended to only grows at its end, so its next follower goes on from here.
   */
  cursor?: CollectCursor;
  /**
   * The team's remainingCredits, read once every page was stored, when `limitCut` was given and
   * the job ended short of it. Absent: not read, or the read failed (the workflow asks itself).
   */
  teamCreditsLeft?: number;
}

export interface MapToStoreInput {
  runId: string;
  body: Record<string, unknown> & { url: string };
}

export interface MapToStoreResult {
  count: number;
  creditsUsed: number;
  ref: StoreReference;
  sample: string[];
}

export interface SelectInput {
  runId: string;
  fromList: string;
  toList: string;
  include?: string[];
  exclude?: string[];
  limit?: number;
}

export interface SelectResult {
  count: number;
  ref: StoreReference;
  sample: string[];
  /** Path prefixes covering the selection, usable as crawl includePaths. */
  pathPatterns: string[];
}

export interface RobotsFilterInput {
  runId: string;
  fromList: string;
  /** Receives the allowed URLs. */
  toList: string;
  /** Receives the disallowed URLs; default `<toList>.robots`. */
  skippedList?: string;
  /** robots.txt agent whose rules apply; default the worker's (ActivityDeps.robotsUserAgent). */
  userAgent?: string;
}

export interface RobotsFilterResult {
  /** URLs allowed (in `ref`). */
  count: number;
  /** URLs disallowed (in `skippedRef`). */
  skipped: number;
  userAgent: string;
  ref: StoreReference;
  skippedRef: StoreReference;
  sample: string[];
  skippedSample: string[];
}

export interface DiffInput {
  runId: string;
  /** URLs to check (a list in the store). */
  fromList: string;
  /** Jobs whose stored documents count as covered. */
  coveredByJobs: string[];
  toList: string;
}

export interface InteractTarget {
  url: string;
}

export interface InteractPageInput {
  runId: string;
  url: string;
  code?: string;
  language?: 'node' | 'python' | 'bash';
  prompt?: string;
  timeout?: number;
}

export interface InteractPageResult {
  url: string;
  scrapeId: string;
  success: boolean;
  exitCode: number | null;
  killed: boolean;
  /** First 2 KB of stdout/output; the whole result is in the store. */
  preview: string;
  error?: string;
}

export interface StopSessionResult {
  stopped: boolean;
  creditsBilled: number;
  sessionDurationMs: number;
}

export interface SupportAnswer {
  requestId?: string;
  answer: string;
  confidence: 'high' | 'medium' | 'low';
  fixParameters: Record<string, unknown> | null;
  validation: { tested: boolean; result: string; evidence: string } | null;
  durationMs: number;
}

export interface CreditSnapshot {
  remainingCredits: number;
  /** Credits the team used in the current calendar month. */
  usedThisMonth: number;
  /** Routes this service lacks (`credit usage history`): usedThisMonth is then 0, unknown. */
  notAvailable?: string[];
}

/** Pages of a series run compared with the previous completed run. */
export interface ChangeCounts {
  new: number;
  changed: number;
  unchanged: number;
  removed: number;
}

export interface OpenSeriesRunInput {
  series: string;
  runId: string;
}

export interface OpenSeriesRunResult {
  /** The run this one compares with; null for the first run of the series. */
  previousRunId: string | null;
}

export interface CloseSeriesRunInput {
  series: string;
  runId: string;
  workflowId: string;
  previousRunId: string | null;
  /** Record the run in the series, as the next run's baseline (completed runs only). */
  record: boolean;
}

export interface ChangeReport {
  series: string;
  runId: string;
  previousRunId: string | null;
  counts: ChangeCounts;
  /** Up to 20 URLs of each kind; the store has them all (documents' `change`, list `removed`). */
  new: string[];
  changed: string[];
  removed: string[];
  removedRef: StoreReference;
  /** The run became the series' baseline (it completed). */
  baseline: boolean;
  /** What happened to the summary webhook, when one was asked for. */
  webhook?: string;
}

export interface SendChangeSummaryInput {
  url: string;
  workflowId: string;
  status: string;
  report: ChangeReport;
}
