// POST /v2/batch/scrape.
import { batchScrapeRequestSchema, isHttpUrl } from 'webdata-contract';
import type { BatchScrapeStartResponse } from 'webdata-contract';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import { requireCredits } from '../billing/guard.js';
import { badRequest, forbidden, notFound } from '../http/errors.js';
import { parseBody } from '../http/validate.js';
import { appendToBatchJob, startBatchJob } from '../jobs/batch-job.js';
import { HttpError } from '../core/http-error.js';
import { imitatesOss } from '../imitate/firecrawl-oss.js';
import { checkIdempotency } from '../jobs/start.js';
import type { JobsRuntime } from '../jobs/runtime.js';
import { startJob } from '../jobs/start.js';

export function registerBatchRoutes(router: Router, jobsRuntime: JobsRuntime): void {
  router.add('POST', '/v2/batch/scrape', (req) => startBatch(jobsRuntime, req), { group: 'batch_scrape' });
}

function startBatch(jobsRuntime: JobsRuntime, req: RouteRequest): RouteResponse<BatchScrapeStartResponse> {
  const {
    origin: _origin,
    integration: _integration,
    urls: given,
    webhook,
    maxConcurrency,
    ignoreInvalidURLs,
    appendToId,
    zeroDataRetention,
    ...scrapeOptions
  } = parseBody(batchScrapeRequestSchema, req.body);
  if (zeroDataRetention === true && !req.team.features.zeroDataRetention) {
    throw forbidden('Forbidden: zeroDataRetention is not enabled for this team; contact support to enable it');
  }
  // Without ignoreInvalidURLs the schema already refused bad entries.
  const isValid = given.map((u) => isHttpUrl(u));
  const valid = given.filter((_, i) => isValid[i]);
  const invalidURLs = given.filter((_, i) => !isValid[i]);
  if (valid.length === 0) {
    throw badRequest('Bad Request: no valid URLs to scrape', [{ path: ['urls'], message: 'must contain at least one valid http(s) URL' }]);
  }
  requireCredits(jobsRuntime.ctx.ledger, req.team);
  const urls = cutToCredits(jobsRuntime, req, valid);
  if (appendToId !== undefined) return appendToBatch(jobsRuntime, req, appendToId, urls, ignoreInvalidURLs === true ? { invalidURLs } : {});
  const teamCap = Math.max(1, req.team.concurrency);
  const concurrency = Math.min(maxConcurrency ?? teamCap, teamCap);
  return startJob(
    jobsRuntime,
    req,
    {
      kind: 'batch_scrape',
      team: req.team,
      apiKey: req.apiKey,
      url: urls[0],
      options: { maxConcurrency: concurrency, ...scrapeOptions },
      scrapeOptions,
      zeroDataRetention: zeroDataRetention === true,
      webhook,
    },
    urls,
    (job) => startBatchJob(jobsRuntime, job, urls, concurrency),
    ignoreInvalidURLs === true ? { invalidURLs } : {},
  );
}

/**
 * `appendToId`: the URLs join the team's batch job (its options stay the job's own); the answer
 * names that job. With an idempotency key, a retried append is refused like a retried start
 * (409 with the job's id), so the URLs are added once (not on the open-source imitation).
 */
function appendToBatch(jobsRuntime: JobsRuntime, req: RouteRequest, id: string, urls: string[], extra: Pick<BatchScrapeStartResponse, 'invalidURLs'>): RouteResponse<BatchScrapeStartResponse> {
  const job = jobsRuntime.store.get(id);
  // The open-source server (0fac8fb) takes appendToId too, but reads the job without a check:
  // an unknown id fails inside (500), and its batch route ignores the idempotency key.
  const oss = imitatesOss(jobsRuntime.ctx.config);
  if (!job || job.kind !== 'batch_scrape' || job.team.id !== req.team.id) {
    if (oss) throw new HttpError(500, 'An unexpected error occurred. Please contact help@firecrawl.com for help.', { code: 'UNKNOWN_ERROR' });
    throw notFound('Batch scrape job to append to not found (appendToId)');
  }
  const key = oss ? undefined : checkIdempotency(jobsRuntime, req);
  if (!appendToBatchJob(jobsRuntime, job, urls)) {
    throw new HttpError(409, `Conflict: batch scrape job ${id} is ${job.status} and cannot be extended (appendToId)`, { code: 'CONFLICT' });
  }
  jobsRuntime.idempotency.remember(req.team.id, key, job.id, jobsRuntime.ctx.now());
  return { body: { success: true, id: job.id, url: `${req.baseUrl}/v2/batch/scrape/${job.id}`, ...extra } };
}

/**
 * The hosted service cuts a batch to the team's remaining credits, silently (no error, no
 * warning field; contract notes "Credits"): the URLs past them are not scraped, nor reported.
 * The open-source server has no billing.
 */
function cutToCredits(jobsRuntime: JobsRuntime, req: RouteRequest, urls: string[]): string[] {
  if (imitatesOss(jobsRuntime.ctx.config)) return urls;
  const available = Math.floor(jobsRuntime.credits.available(req.team.id));
  return urls.slice(0, Math.max(1, available));
}
