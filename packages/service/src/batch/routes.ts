// POST /v2/batch/scrape.
import { batchScrapeRequestSchema, isHttpUrl } from 'webdata-contract';
import type { BatchScrapeStartResponse } from 'webdata-contract';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import { requireCredits } from '../billing/guard.js';
import { badRequest, forbidden } from '../http/errors.js';
import { parseBody } from '../http/validate.js';
import { startBatchJob } from '../jobs/batch-job.js';
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
    zeroDataRetention,
    ...scrapeOptions
  } = parseBody(batchScrapeRequestSchema, req.body);
  if (zeroDataRetention === true && !req.team.features.zeroDataRetention) {
    throw forbidden('Forbidden: zeroDataRetention is not enabled for this team; contact support to enable it');
  }
  // Without ignoreInvalidURLs the schema already refused bad entries.
  const urls = given.filter((u) => isHttpUrl(u));
  const invalidURLs = given.filter((u) => !isHttpUrl(u));
  if (urls.length === 0) {
    throw badRequest('Bad Request: no valid URLs to scrape', [{ path: ['urls'], message: 'must contain at least one valid http(s) URL' }]);
  }
  requireCredits(jobsRuntime.ctx.ledger, req.team);
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
