// Crawl and batch jobs: starts that never pay twice, small status summaries, cancel, errors.
import { ApplicationFailure } from '@temporalio/common';
import { WebDataApiError } from 'webdata-client';
import type { BatchScrapeRequest, CrawlRequest, CrawlParamsPreviewRequest } from 'webdata-contract';
import type { ActivityEntry, JobStatusResponse } from 'webdata-contract';
import { currentScope, type ActivityScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import { IdempotencyMemory } from './idempotency.js';
import { reportingRateLimits, type GovernedInput } from './team-governor.js';
import type { JobKind, JobStatus, JobSummary, StartJobResult } from './types.js';
import { sameUrl } from 'webdata-contract';

export interface StartCrawlInput {
  body: CrawlRequest;
  /** Set when the run's jobs are governed (a 429 pauses the team's governor). */
  governed?: GovernedInput;
  /** A UUID derived deterministically in the workflow, the same on every retry. */
  idempotencyKey?: string;
}

export interface StartBatchInput {
  /** A full request body, or `urlsFrom` + `options` to read the URLs from a stored link list. */
  body?: BatchScrapeRequest;
  /** `offset`: list entries to pass over (URLs an earlier job of the stage took, or earlier chunks of a governed batch). */
  urlsFrom?: { runId: string; list: string; limit?: number; offset?: number };
  governed?: GovernedInput;
  options?: Omit<BatchScrapeRequest, 'urls'>;
  idempotencyKey?: string;
}

/** Clock skew allowed between this worker and the service when matching a lost job. */
const SKEW_MS = 60_000;

function isIdempotencyConflict(err: unknown): err is WebDataApiError {
  return err instanceof WebDataApiError && err.kind === 'conflict' && /idempotency/i.test(err.message);
}

/**
 * A keyed start the service could not process because of the key: the open-source server
 * answers 500 UNKNOWN_ERROR to any POST /v2/crawl carrying `x-idempotency-key` (its key store
 * needs a database), on every retry. Only meaningful when the request carried the key.
 */
function isKeyRefused(err: unknown): err is WebDataApiError {
  return err instanceof WebDataApiError && err.kind === 'server' && err.status === 500 && err.code === 'UNKNOWN_ERROR';
}

/** A lookup route this service lacks (activity listing, active crawls) finds nothing. */
async function orNothing<T>(lookup: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await lookup();
  } catch (err) {
    if (err instanceof WebDataApiError && err.kind === 'not_available') return undefined;
    throw err;
  }
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
  return orNothing(() => scanActivity(deps, scope, endpoint, target));
}

async function scanActivity(deps: ActivityDeps, scope: ActivityScope, endpoint: 'crawl' | 'batch_scrape', target: string): Promise<string | undefined> {
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

/** A crawl of `url` started since this activity was first scheduled: active crawls, then the activity listing. */
async function findStartedCrawl(deps: ActivityDeps, scope: ActivityScope, url: string): Promise<string | undefined> {
  const active = await orNothing(() => deps.client.listActiveCrawls({ signal: scope.signal }));
  return pickRecovered((active?.crawls ?? []).filter((c) => sameUrl(c.url, url)), scope.firstScheduledMs())?.id
    ?? (await findInActivity(deps, scope, 'crawl', url));
}

async function recoverCrawl(deps: ActivityDeps, scope: ActivityScope, err: WebDataApiError, url: string): Promise<string> {
  if (err.jobId) return err.jobId;
  const found = await findStartedCrawl(deps, scope, url);
  if (found) return found;
  throw ApplicationFailure.create({
    message: `crawl start: the idempotency key was already used but no crawl of ${url} started since this activity was scheduled could be found`,
    type: 'conflict',
    nonRetryable: true,
  });
}

export function createJobActivities(deps: ActivityDeps) {
  const client = deps.client;
  const memory = deps.idempotency ?? new IdempotencyMemory();
  const service = client.origin;

  /**
   * Starts a job, with the key unless this service is known to refuse it. A keyed start that
   * fails with 500 UNKNOWN_ERROR is recovered: a job started since the first attempt is taken
   * (`find`), else the job is started once more without the key and the service remembered as
   * refusing it, so later starts omit the key at once. Without a key, a retry looks for the job
   * an earlier attempt may have started before starting another one.
   */
  async function startOnce<R extends { id: string }>(
    scope: ActivityScope,
    what: string,
    key: string | undefined,
    send: (key: string | undefined) => Promise<R>,
    find: () => Promise<string | undefined>,
  ): Promise<{ res?: R; jobId: string; recovered: boolean; idempotency?: 'unsupported' }> {
    if (key !== undefined && memory.refuses(service)) {
      if (scope.attempt() > 1) {
        const earlier = await find();
        if (earlier) {
          scope.log.info(`${what}: recovered the job an earlier unkeyed attempt started`, { jobId: earlier });
          return { jobId: earlier, recovered: true, idempotency: 'unsupported' };
        }
      }
      const res = await send(undefined);
      return { res, jobId: res.id, recovered: false, idempotency: 'unsupported' };
    }
    try {
      const res = await send(key);
      return { res, jobId: res.id, recovered: false };
    } catch (err) {
      if (key === undefined || !isKeyRefused(err)) throw err;
      // The key may be what failed: take a job this activity already started, if any.
      const started = await find();
      if (started) {
        scope.log.info(`${what}: recovered a job started since the first attempt after a 500 to the keyed start`, { jobId: started });
        return { jobId: started, recovered: true };
      }
      const res = await send(undefined);
      memory.markRefused(service);
      scope.log.warn(`${what}: the service refused the idempotency key (500 ${err.code}); started without it, and later starts omit it`, { jobId: res.id });
      return { res, jobId: res.id, recovered: false, idempotency: 'unsupported' };
    }
  }

  async function startCrawl(input: StartCrawlInput): Promise<StartJobResult> {
    const scope = currentScope();
    return mapFailures(async () => {
      try {
        const out = await startOnce(
          scope,
          'crawl start',
          input.idempotencyKey,
          (key) => reportingRateLimits(deps, input.governed, () => client.startCrawl(input.body, { idempotencyKey: key, signal: scope.signal })),
          () => findStartedCrawl(deps, scope, input.body.url),
        );
        return { jobId: out.jobId, recovered: out.recovered, ...(out.idempotency ? { idempotency: out.idempotency } : {}) };
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
        const out = await startOnce(
          scope,
          'batch scrape start',
          input.idempotencyKey,
          (key) => reportingRateLimits(deps, input.governed, () => client.startBatchScrape(body, { idempotencyKey: key, signal: scope.signal })),
          () => findInActivity(deps, scope, 'batch_scrape', body.urls[0] ?? ''),
        );
        return {
          jobId: out.jobId,
          recovered: out.recovered,
          ...(out.res ? { invalidURLs: out.res.invalidURLs?.length } : {}),
          ...(out.idempotency ? { idempotency: out.idempotency } : {}),
        };
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
    const { runId, list, limit = Number.POSITIVE_INFINITY, offset = 0 } = input.urlsFrom;
    const urls: string[] = [];
    let passed = 0;
    for await (const link of deps.store.readLinks(runId, list)) {
      if (passed++ < offset) continue;
      if (urls.length >= limit) break;
      urls.push(link.url);
    }
    return urls;
  }


  /** Status without documents (limit 1): small enough for workflow history. */
  async function getJobSummary(input: { kind: JobKind; jobId: string }): Promise<JobSummary> {
    const scope = currentScope();
    return mapFailures(async () => {
      const page = { skip: 0, limit: 1 };
      const res = input.kind === 'crawl'
        ? await client.getCrawlStatus(input.jobId, page, { signal: scope.signal })
        : await client.getBatchScrapeStatus(input.jobId, page, { signal: scope.signal });
      return jobSummary(input.kind, input.jobId, res);
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
        // A service without the cancel route: nothing to stop with, the job runs to its end.
        if (err instanceof WebDataApiError && err.kind === 'not_available') return { status: 'not available' };
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

/** What the workflow keeps of a job's status answer (the follower's last answer gives the same). */
export function jobSummary(kind: JobKind, jobId: string, res: JobStatusResponse): JobSummary {
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
