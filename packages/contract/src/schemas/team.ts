// Team queries: activity listing (4.4), historical credit usage (4.14) and its token twin.
import { z } from 'zod';
import { nonEmpty, queryBool, queryInt } from './common.js';
import { MAX_ACTIVITY_LIMIT } from '../defaults.js';

export const activityEndpoints = [
  'scrape',
  'crawl',
  'batch_scrape',
  'search',
  'extract',
  'llmstxt',
  'deep_research',
  'map',
  'agent',
  'browser',
  'interact',
] as const;

export const activityQuerySchema = z.strictObject({
  endpoint: z.enum(activityEndpoints).optional(),
  limit: queryInt(1, MAX_ACTIVITY_LIMIT).optional(),
  cursor: nonEmpty.optional(),
});

export const historicalCreditUsageQuerySchema = z.strictObject({
  byApiKey: queryBool.optional(),
});

/** GET /v2/team/token-usage/historical mirrors the credit-usage history. */
export const historicalTokenUsageQuerySchema = historicalCreditUsageQuerySchema;

export type ActivityEndpoint = (typeof activityEndpoints)[number];
export type ActivityQuery = z.input<typeof activityQuerySchema>;
export type ActivityQueryParsed = z.output<typeof activityQuerySchema>;
export type HistoricalCreditUsageQuery = z.input<typeof historicalCreditUsageQuerySchema>;
export type HistoricalCreditUsageQueryParsed = z.output<typeof historicalCreditUsageQuerySchema>;
export type HistoricalTokenUsageQuery = z.input<typeof historicalTokenUsageQuerySchema>;
