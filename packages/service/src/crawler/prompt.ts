// Crawl `prompt` → crawl options (POST /v2/crawl with `prompt`, POST /v2/crawl/params-preview).
// The one hook for it: a configured OpenAI-compatible model proposes the options, otherwise
// the documented rule-based reading of crawl-prompt/rules.ts does; callers merge explicit
// request options over what this returns.
import type { ServiceContext } from '../core/service.js';
import { generateCrawlOptions, type CrawlPromptOptions } from '../crawl-prompt/index.js';

/** The options a prompt may generate (reference 4.6 `data`). */
export type GeneratedCrawlOptions = CrawlPromptOptions;

export async function applyCrawlPrompt(
  input: { url: string; prompt: string; signal?: AbortSignal },
  ctx: ServiceContext,
): Promise<GeneratedCrawlOptions> {
  return generateCrawlOptions(input, ctx);
}
