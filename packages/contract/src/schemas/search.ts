// POST /v2/search (4.12).
import { z } from 'zod';
import { body, countryCode, int } from './common.js';
import { scrapeOptionsSchema } from './scrape.js';
import { MAX_SEARCH_LIMIT, MAX_SEARCH_QUERY } from '../defaults.js';

export const searchSourceNames = ['web', 'images', 'news'] as const;
export const searchCategoryNames = ['github', 'research', 'pdf'] as const;

const sourceName = z.enum(searchSourceNames);
const categoryName = z.enum(searchCategoryNames);

// Sources and categories are plain strings or `{ type }` objects (the usage text shows both).
export const searchSourceSchema = z.union([sourceName, z.strictObject({ type: sourceName })], {
  error: `must be one of: ${searchSourceNames.join(', ')} (or an object with that type)`,
});
export const searchCategorySchema = z.union([categoryName, z.strictObject({ type: categoryName })], {
  error: `must be one of: ${searchCategoryNames.join(', ')} (or an object with that type)`,
});

/** A bare hostname: no scheme, no path, no port. */
export const hostnameSchema = z
  .string()
  .regex(/^(?=.{1,253}$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*$/, {
    error: 'must be a hostname only (no protocol or path)',
  });

// Each comma-separated part of `tbs` is one of the documented filters; `cdr:1` goes with
// cd_min/cd_max parts.
const TBS_PART = /^(qdr:[hdwmy]|cdr:1|cd_min:\d{1,2}\/\d{1,2}\/\d{4}|cd_max:\d{1,2}\/\d{1,2}\/\d{4}|sbd:[01])$/;
export const tbsSchema = z.string().refine((v) => v.split(',').every((p) => TBS_PART.test(p.trim())), {
  error: 'must be qdr:h|d|w|m|y, cdr:1,cd_min:MM/DD/YYYY,cd_max:MM/DD/YYYY or sbd:1, combined with commas',
});

export const searchRequestSchema = body({
  query: z.string().min(1).max(MAX_SEARCH_QUERY),
  limit: int.min(1).max(MAX_SEARCH_LIMIT).optional(),
  sources: z.array(searchSourceSchema).optional(),
  categories: z.array(searchCategorySchema).optional(),
  includeDomains: z.array(hostnameSchema).optional(),
  excludeDomains: z.array(hostnameSchema).optional(),
  tbs: tbsSchema.optional(),
  location: z.string().min(1).optional(),
  country: countryCode.optional(),
  timeout: int.min(1).optional(),
  ignoreInvalidURLs: z.boolean().optional(),
  enterprise: z.array(z.enum(['anon', 'zdr'])).optional(),
  scrapeOptions: scrapeOptionsSchema.optional(),
}).superRefine((value, ctx) => {
  // Empty lists filter nothing, so only two non-empty lists conflict.
  if (value.includeDomains?.length && value.excludeDomains?.length) {
    ctx.addIssue({
      code: 'custom',
      path: ['excludeDomains'],
      message: 'includeDomains and excludeDomains are mutually exclusive',
    });
  }
});

export type SearchRequest = z.input<typeof searchRequestSchema>;
export type SearchRequestParsed = z.output<typeof searchRequestSchema>;
