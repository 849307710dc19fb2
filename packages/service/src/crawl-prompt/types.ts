// The crawl options a natural-language prompt may produce: the contract's params-preview
// options (reference 4.6 `data`, minus `url`), and how a proposal was reached.
import type { CrawlParamsPreviewOptions } from 'webdata-contract';

export type CrawlPromptOptions = CrawlParamsPreviewOptions;

export const CRAWL_PROMPT_FIELDS = [
  'includePaths', 'excludePaths', 'maxDepth', 'maxDiscoveryDepth', 'crawlEntireDomain', 'allowExternalLinks',
  'allowSubdomains', 'sitemap', 'ignoreQueryParameters', 'ignoreRobotsTxt', 'robotsUserAgent',
  'deduplicateSimilarURLs', 'delay', 'limit',
] as const satisfies ReadonlyArray<keyof CrawlPromptOptions>;

export interface CrawlProposal {
  options: CrawlPromptOptions;
  source: 'model' | 'rules';
  /** What was read from the prompt, what was dropped and why (for people, not machines). */
  notes: string[];
}
