// POST /v2/crawl (4.5), POST /v2/crawl/params-preview (4.6) and the status page query.
import { z } from 'zod';
import { body, httpUrl, int, nonEmpty, queryInt, sitemapMode } from './common.js';
import { scrapeOptionsSchema } from './scrape.js';
import { webhookSpecSchema } from './webhook.js';
import { MAX_CRAWL_PROMPT, MAX_STATUS_PAGE_LIMIT } from '../defaults.js';
import { pathPatternSchemaOf, patternListSchemaOf } from './factories.js';

/** A URL pattern from a user (factories.ts has the rule). */
export const pathPatternSchema = pathPatternSchemaOf();

/** A list of patterns (includePaths, excludePaths, select include/exclude). */
export const patternListSchema = patternListSchemaOf(pathPatternSchema);

export const crawlRequestSchema = body({
  url: httpUrl,
  prompt: z.string().min(1).max(MAX_CRAWL_PROMPT).optional(),
  excludePaths: patternListSchema.optional(),
  includePaths: patternListSchema.optional(),
  maxDiscoveryDepth: int.min(0).optional(),
  sitemap: sitemapMode.optional(),
  ignoreQueryParameters: z.boolean().optional(),
  regexOnFullURL: z.boolean().optional(),
  limit: int.min(1).optional(),
  crawlEntireDomain: z.boolean().optional(),
  allowExternalLinks: z.boolean().optional(),
  allowSubdomains: z.boolean().optional(),
  ignoreRobotsTxt: z.boolean().optional(),
  robotsUserAgent: nonEmpty.optional(),
  delay: z.number().min(0).optional(),
  maxConcurrency: int.min(1).optional(),
  webhook: webhookSpecSchema.optional(),
  scrapeOptions: scrapeOptionsSchema.optional(),
  zeroDataRetention: z.boolean().optional(),
});

export const crawlParamsPreviewRequestSchema = body({
  url: httpUrl,
  prompt: z.string().min(1).max(MAX_CRAWL_PROMPT),
});

/** Query of GET /v2/crawl/{id} and GET /v2/batch/scrape/{id}. */
export const jobStatusQuerySchema = z.strictObject({
  skip: queryInt(0).optional(),
  limit: queryInt(1, MAX_STATUS_PAGE_LIMIT).optional(),
});

export type CrawlRequest = z.input<typeof crawlRequestSchema>;
export type CrawlRequestParsed = z.output<typeof crawlRequestSchema>;
export type CrawlParamsPreviewRequest = z.input<typeof crawlParamsPreviewRequestSchema>;
export type CrawlParamsPreviewRequestParsed = z.output<typeof crawlParamsPreviewRequestSchema>;
export type JobStatusQuery = z.input<typeof jobStatusQuerySchema>;
export type JobStatusQueryParsed = z.output<typeof jobStatusQuerySchema>;
