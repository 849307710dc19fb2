// Crawl and batch jobs: starts that never pay twice, small status summaries, cancel, errors.
import { ApplicationFailure } from '@temporalio/common';
import { WebDataApiError } from 'webdata-client';
import type { BatchScrapeRequest, CrawlRequest, CrawlParamsPreviewRequest } from 'webdata-contract';
import type { ActivityEntry, JobStatusResponse } from 'webdata-contract';
import { currentScope, type ActivityScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import type { JobKind, JobStatus, JobSummary, StartJobResult } from './types.js';

export interface StartCrawlInput {
  body: CrawlRequest;
  /** A UUID derived deterministically in the workflow, the same on every retry. */
  idempotencyKey?: string;
}

export interface StartBatchInput {
  /** A full request body, or `urlsFrom` + `options` to read the URLs from a stored link list. */
  body?: BatchScrapeRequest;
  urlsFrom?: { runId: string; list: string; limit?: number };
  options?: Omit<BatchScrapeRequest, 'urls'>;
  idempotencyKey?: string;
}

/** Clock skew allowed between this worker and the service when matching a lost job. */
const SKEW_MS = 60_000;

function isIdempotencyConflict(err: unknown): err is WebDataApiError {
  return err instanceof WebDataApiError && err.kind === 'conflict' && /idempotency/i.test(err.message);
}

function sameUrl(a: string | undefined | null, b: string): boolean {
  if (!a) return false;
  const norm = (u: string) => u.replace(/\/+$/, '').toLowerCase();
  return norm(a) === norm(b);
}

function createdAtMs(value: string | undefined): number {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

/** The oldest job created since this activity was first scheduled that matches the target. */
function pickRecovered<T extends { id: string; created_at?: string }>(candidates: T[], since: number): T | undefined {
  return candidates
    .filter((c) => createdAtMs(c.created_at) >= since - SKEW_MS)
    .sort((a, b) => createdAtMs(a.created_at) - createdAtMs(b.created_at))[0];
}

async function findInActivity(deps: ActivityDeps, scope: ActivityScope, endpoint: 'crawl' | 'batch_scrape', target: string): Promise<string | undefined> {
  const matches: ActivityEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const res = await deps.client.listActivity({ endpoint, limit: 100, cursor }, { signal: scope.signal });
    matches.push(...res.data.filter((e) => sameUrl(e.target ?? undefined, target)));
    if (!res.has_more || !res.cursor) break;
    cursor = res.cursor;
  }
  return pickRecovered(matches, scope.firstScheduledMs())?.id;
}

async function recoverCrawl(deps: ActivityDeps, scope: ActivityScope, err: WebDataApiError, url: string): Promise<string> {
  if (err.jobId) return err.jobId;
  const active = await deps.client.listActiveCrawls({ signal: scope.signal });
  const found = pickRecovered(active.crawls.filter((c) => sameUrl(c.url, url)), scope.firstScheduledMs())?.id
    ?? (await findInActivity(deps, scope, 'crawl', url));
  if (found) return found;
  throw ApplicationFailure.create({
    message: `crawl start: the idempotency key was already used but no crawl of ${url} started since this activity was scheduled could be found`,
    type: 'conflict',
    nonRetryable: true,
  });
}

export function createJobActivities(deps: ActivityDeps) {
  const client = deps.client;

  async function startCrawl(input: StartCrawlInput): Promise<StartJobResult> {
    const scope = currentScope();
    return mapFailures(async () => {
      try {
        const res = await client.startCrawl(input.body, { idempotencyKey: input.idempotencyKey, signal: scope.signal });
        return { jobId: res.id, recovered: false };
      } catch (err) {
        if (!isIdempotencyConflict(err)) throw err;
        // A previous attempt started the job and its response was lost: find it, pay nothing.
        const jobId = await recoverCrawl(deps, scope, err, input.body.url);
        scope.log.info('recovered crawl job after a lost start response', { jobId });
        return { jobId, recovered: true };
      }
    });
  }

  async function startBatchScrape(input: StartBatchInput): Promise<StartJobResult> {
    const scope = currentScope();
    return mapFailures(async () => {
      const body = input.body ?? { ...(input.options ?? {}), urls: await readUrls(input) };
      try {
        const res = await client.startBatchScrape(body, { idempotencyKey: input.idempotencyKey, signal: scope.signal });
        return { jobId: res.id, recovered: false, invalidURLs: res.invalidURLs?.length };
      } catch (err) {
        if (!isIdempotencyConflict(err)) throw err;
        const jobId = err.jobId ?? (await findInActivity(deps, scope, 'batch_scrape', body.urls[0] ?? ''));
        if (!jobId) {
          throw ApplicationFailure.create({
            message: 'batch scrape start: the idempotency key was already used but the started batch could not be found',
            type: 'conflict',
            nonRetryable: true,
          });
        }
        scope.log.info('recovered batch scrape job after a lost start response', { jobId });
        return { jobId, recovered: true };
      }
    });
  }

  async function readUrls(input: StartBatchInput): Promise<string[]> {
    if (!input.urlsFrom) {
      throw ApplicationFailure.create({ message: 'batch scrape start: one of body or urlsFrom is required', type: 'validation', nonRetryable: true });
    }
    const { runId, list, limit = Number.POSITIVE_INFINITY } = input.urlsFrom;
    const urls: string[] = [];
    for await (const link of deps.store.readLinks(runId, list)) {
      if (urls.length >= limit) break;
      urls.push(link.url);
    }
    return urls;
  }

  function summarize(kind: JobKind, jobId: string, res: JobStatusResponse): JobSummary {
    return {
      jobId,
      kind,
      status: res.status as JobStatus,
      total: res.total ?? 0,
      completed: res.completed ?? 0,
      creditsUsed: res.creditsUsed ?? 0,
      ...(res.error ? { error: String(res.error) } : {}),
    };
  }

  /** Status without documents (limit 1): small enough for workflow history. */
  async function getJobSummary(input: { kind: JobKind; jobId: string }): Promise<JobSummary> {
    const scope = currentScope();
    return mapFailures(async () => {
      const page = { skip: 0, limit: 1 };
      const res = input.kind === 'crawl'
        ? await client.getCrawlStatus(input.jobId, page, { signal: scope.signal })
        : await client.getBatchScrapeStatus(input.jobId, page, { signal: scope.signal });
      return summarize(input.kind, input.jobId, res);
    });
  }

  /** Cancels a job; a job that already finished (409) or vanished (404) counts as stopped. */
  async function cancelJob(input: { kind: JobKind; jobId: string }): Promise<{ status: string }> {
    const scope = currentScope();
    return mapFailures(async () => {
      try {
        const res = input.kind === 'crawl'
          ? await client.cancelCrawl(input.jobId, { signal: scope.signal })
          : await client.cancelBatchScrape(input.jobId, { signal: scope.signal });
        return { status: String(res.status) };
      } catch (err) {
        if (err instanceof WebDataApiError && (err.kind === 'conflict' || err.kind === 'not_found')) return { status: err.kind === 'conflict' ? 'finished' : 'gone' };
        throw err;
      }
    });
  }

  async function jobErrors(kind: JobKind, jobId: string) {
    const scope = currentScope();
    return mapFailures(async () => {
      const res = kind === 'crawl'
        ? await client.getCrawlErrors(jobId, { signal: scope.signal })
        : await client.getBatchScrapeErrors(jobId, { signal: scope.signal });
      return { errors: res.errors.map((e) => ({ url: e.url, error: e.error, code: e.code })), robotsBlocked: res.robotsBlocked };
    });
  }

  return {
    startCrawl,
    startBatchScrape,
    getJobSummary,
    cancelJob,
    getCrawlStatus: (input: { id: string }) => getJobSummary({ kind: 'crawl', jobId: input.id }),
    getBatchScrapeStatus: (input: { id: string }) => getJobSummary({ kind: 'batch', jobId: input.id }),
    cancelCrawl: (input: { id: string }) => cancelJob({ kind: 'crawl', jobId: input.id }),
    cancelBatchScrape: (input: { id: string }) => cancelJob({ kind: 'batch', jobId: input.id }),
    getCrawlErrors: (input: { id: string }) => jobErrors('crawl', input.id),
    getBatchScrapeErrors: (input: { id: string }) => jobErrors('batch', input.id),
    async listActiveCrawls(): Promise<Array<{ id: string; url: string; createdAt?: string }>> {
      const scope = currentScope();
      return mapFailures(async () => {
        const res = await client.listActiveCrawls({ signal: scope.signal });
        return res.crawls.map((c) => ({ id: c.id, url: c.url, createdAt: c.created_at }));
      });
    },
    async previewCrawlParams(input: { body: CrawlParamsPreviewRequest }): Promise<Record<string, unknown>> {
      const scope = currentScope();
      return mapFailures(async () => (await client.previewCrawlParams(input.body, { signal: scope.signal })).data);
    },
  };
}
