// The crawl options a natural-language prompt may produce (reference 4.6 `data`, minus `url`).

export interface CrawlPromptOptions {
  includePaths?: string[];
  excludePaths?: string[];
  /** Accepted from a model for v1 compatibility; the crawl itself uses maxDiscoveryDepth. */
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
  /** Seconds between pages. */
  delay?: number;
  limit?: number;
}

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
