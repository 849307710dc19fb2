// POST /v2/map (4.13).
import { z } from 'zod';
import { body, httpUrl, int, locationSchema, sitemapMode } from './common.js';
import { MAX_MAP_LIMIT } from '../defaults.js';

export const mapRequestSchema = body({
  url: httpUrl,
  search: z.string().optional(),
  sitemap: sitemapMode.optional(),
  includeSubdomains: z.boolean().optional(),
  ignoreQueryParameters: z.boolean().optional(),
  ignoreCache: z.boolean().optional(),
  limit: int.min(1).max(MAX_MAP_LIMIT).optional(),
  timeout: int.min(1).optional(),
  location: locationSchema.optional(),
});

export type MapRequest = z.input<typeof mapRequestSchema>;
export type MapRequestParsed = z.output<typeof mapRequestSchema>;
