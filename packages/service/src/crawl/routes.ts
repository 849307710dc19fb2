// POST /v2/crawl, POST /v2/crawl/params-preview and GET /v2/crawl/active.
import { crawlRequestSchema } from 'webdata-contract';
import type { ActiveCrawl, ActiveCrawlsResponse, CrawlStartResponse } from 'webdata-contract';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import { applyCrawlPrompt } from '../crawler/prompt.js';
import { createParamsPreviewHandler } from '../crawl-prompt/index.js';
import { parseBody } from '../http/validate.js';
import { startCrawlJob } from '../jobs/crawl-job.js';
import { checkCrawlFeatures, crawlLimit, crawlSettings, type CrawlOptions } from '../jobs/crawl-plan.js';
import type { JobsRuntime } from '../jobs/runtime.js';
import { checkIdempotency, startJob } from '../jobs/start.js';
import { imitatesOss } from '../imitate/firecrawl-oss.js';

export function registerCrawlRoutes(router: Router, jobsRuntime: JobsRuntime): void {
  router.add('POST', '/v2/crawl', (req) => startCrawl(jobsRuntime, req), { group: 'crawl' });
  router.add('POST', '/v2/crawl/params-preview', (req) => paramsPreview(jobsRuntime, req), { group: 'crawl' });
  router.add('GET', '/v2/crawl/active', (req) => activeCrawls(jobsRuntime, req), { group: 'crawl_status' });
}

async function startCrawl(jobsRuntime: JobsRuntime, req: RouteRequest): Promise<RouteResponse<CrawlStartResponse>> {
  // The open-source server checks the key in a middleware, before it reads the body.
  if (imitatesOss(jobsRuntime.ctx.config)) checkIdempotency(jobsRuntime, req);
  const { origin: _origin, integration: _integration, prompt, ...explicit } = parseBody(crawlRequestSchema, req.body);
  let options: CrawlOptions = explicit;
  if (prompt !== undefined) {
    // Fail fast on a reused key before paying for a model call.
    checkIdempotency(jobsRuntime, req);
    const generated = await applyCrawlPrompt({ url: explicit.url, prompt, signal: req.signal }, jobsRuntime.ctx);
    const { maxDepth: _maxDepth, deduplicateSimilarURLs: _dedupe, ...crawlFields } = generated;
    // Explicit request options win over generated ones; the merge is validated again.
    options = parseBody(crawlRequestSchema, { ...crawlFields, ...explicit });
  }
  checkCrawlFeatures(options, req.team);
  const limit = crawlLimit(jobsRuntime, options, req.team);
  const abort = new AbortController();
  const settings = crawlSettings(jobsRuntime, options, req.team, limit, abort.signal);
  const { url, webhook, ...listed } = options;
  const scrapeOptions: Record<string, unknown> = { ...(options.scrapeOptions ?? {}) };
  return startJob(
    jobsRuntime,
    req,
    {
      kind: 'crawl',
      team: req.team,
      apiKey: req.apiKey,
      url,
      options: { ...listed, limit, scrapeOptions },
      scrapeOptions,
      zeroDataRetention: options.zeroDataRetention === true,
      webhook,
    },
    [url],
    (job) => {
      // The settings' robots fetches follow the job's abort signal.
      job.abort.signal.addEventListener('abort', () => abort.abort(job.abort.signal.reason), { once: true });
      startCrawlJob(jobsRuntime, job, settings);
    },
  );
}

/** Params preview: the generated options with the reference's defaults filled in (crawl-prompt/). */
const paramsPreviewHandler = createParamsPreviewHandler();
function paramsPreview(_rt: JobsRuntime, req: RouteRequest): Promise<RouteResponse> {
  return Promise.resolve(paramsPreviewHandler(req));
}

function activeCrawls(jobsRuntime: JobsRuntime, req: RouteRequest): RouteResponse<ActiveCrawlsResponse> {
  const crawls: ActiveCrawl[] = jobsRuntime.store
    .running()
    .filter((j) => j.kind === 'crawl' && j.team.id === req.team.id)
    .map((j) => ({ id: j.id, teamId: j.team.id, url: j.url, created_at: new Date(j.createdAt).toISOString(), options: j.options }));
  return { body: { success: true, crawls } };
}
