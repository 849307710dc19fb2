// Crawl `prompt` → crawl options (POST /v2/crawl with `prompt`, POST /v2/crawl/params-preview).
// This is the one hook for it: generating options needs a language model, which this
// service does not have yet, so it answers a clear 503 (the reference's status for a
// feature the deployment has not configured). Replace the body with a model call that
// returns the fields below; callers merge explicit request options over them.
import { HttpError } from '../core/contract.js';
import type { ServiceContext } from '../core/contract.js';

/** The options a prompt may generate (reference 4.6 `data`). */
export interface GeneratedCrawlOptions {
  includePaths?: string[];
  excludePaths?: string[];
  maxDepth?: number;
  maxDiscoveryDepth?: number;
  crawlEntireDomain?: boolean;
  allowExternalLinks?: boolean;
  allowSubdomains?: boolean;
  sitemap?: 'skip' | 'include' | 'only';
  ignoreQueryParameters?: boolean;
  ignoreRobotsTxt?: boolean;
  robotsUserAgent?: string;
  deduplicateSimilarURLs?: boolean;
  delay?: number;
  limit?: number;
}

export async function applyCrawlPrompt(
  input: { url: string; prompt: string; signal?: AbortSignal },
  _ctx: ServiceContext,
): Promise<GeneratedCrawlOptions> {
  void input;
  throw new HttpError(
    503,
    'Crawl prompts are not available: this service has no language model configured to turn a prompt into crawl options. Set the crawl options (includePaths, limit, ...) explicitly instead.',
    { code: 'PROMPT_NOT_CONFIGURED' },
  );
}
