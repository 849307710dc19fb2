// POST /v2/crawl/params-preview (reference 4.6): the options a prompt generates, with the
// reference's defaults filled in for the fields the prompt left out, so the answer shows
// the crawl that would run. Fields without a default (maxDepth, maxDiscoveryDepth,
// robotsUserAgent, delay) appear only when generated. Not registered here: the jobs module
// owns the /v2/crawl paths and wires this handler.
import { crawlParamsPreviewRequestSchema, DEFAULT_CRAWL_LIMIT } from 'webdata-contract';
import type { CrawlParamsPreviewResponse } from 'webdata-contract';
import type { RouteHandler, RouteRequest, RouteResponse } from '../core/routes.js';
import { parseBody } from '../http/validate.js';
import { llmConfigFromEnv, type LlmConfig } from './llm.js';
import { proposeCrawlOptions } from './propose.js';
import type { CrawlPromptOptions } from './types.js';

/** Reference defaults (4.5) for the preview fields that have one. */
export const PREVIEW_DEFAULTS = {
  includePaths: [] as string[],
  excludePaths: [] as string[],
  crawlEntireDomain: false,
  allowExternalLinks: false,
  allowSubdomains: false,
  sitemap: 'include' as const,
  ignoreQueryParameters: false,
  ignoreRobotsTxt: false,
  deduplicateSimilarURLs: false,
  limit: DEFAULT_CRAWL_LIMIT,
};

export function previewData(url: string, options: CrawlPromptOptions): CrawlParamsPreviewResponse['data'] {
  const o = { ...PREVIEW_DEFAULTS, ...options };
  const depth = o.maxDiscoveryDepth ?? o.maxDepth;
  return {
    url,
    includePaths: o.includePaths,
    excludePaths: o.excludePaths,
    ...(o.maxDepth !== undefined || depth !== undefined ? { maxDepth: o.maxDepth ?? depth } : {}),
    ...(o.maxDiscoveryDepth !== undefined ? { maxDiscoveryDepth: o.maxDiscoveryDepth } : {}),
    crawlEntireDomain: o.crawlEntireDomain,
    allowExternalLinks: o.allowExternalLinks,
    allowSubdomains: o.allowSubdomains,
    sitemap: o.sitemap,
    ignoreQueryParameters: o.ignoreQueryParameters,
    ignoreRobotsTxt: o.ignoreRobotsTxt,
    ...(o.robotsUserAgent !== undefined ? { robotsUserAgent: o.robotsUserAgent } : {}),
    deduplicateSimilarURLs: o.deduplicateSimilarURLs,
    ...(o.delay !== undefined ? { delay: o.delay } : {}),
    limit: o.limit,
  };
}

/**
 * The handler for POST /v2/crawl/params-preview (route group `crawl`). `llm` defaults to the
 * model of the environment (LLM_BASE_URL, LLM_MODEL); without one the rules answer.
 * Besides `data`, the answer carries `source` ("model" or "rules") and `notes`.
 */
export function createParamsPreviewHandler(opts: { llm?: LlmConfig | null } = {}): RouteHandler {
  return async (req: RouteRequest): Promise<RouteResponse<CrawlParamsPreviewResponse>> => {
    const { url, prompt } = parseBody(crawlParamsPreviewRequestSchema, req.body);
    const llm = opts.llm === null ? undefined : opts.llm ?? llmConfigFromEnv();
    const proposal = await proposeCrawlOptions({ url, prompt, llm, signal: req.signal });
    return { body: { success: true, data: previewData(url, proposal.options), source: proposal.source, notes: proposal.notes } };
  };
}
