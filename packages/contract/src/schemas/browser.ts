// Browser sessions: POST /v2/browser (4.9), GET /v2/browser (4.10), DELETE (4.11).
import { z } from 'zod';
import { body, int, nonEmpty, profileSchema } from './common.js';

export const browserCreateRequestSchema = body({
  ttl: int.min(30).max(3600).optional(),
  activityTtl: int.min(10).max(3600).optional(),
  streamWebView: z.boolean().optional(),
  profile: profileSchema.optional(),
});

/** Body form of DELETE /v2/browser (4.11 states both the path and the body form). */
export const browserDeleteRequestSchema = body({ id: nonEmpty });

export const browserListQuerySchema = z.strictObject({
  status: z.enum(['active', 'destroyed']).optional(),
});

export type BrowserCreateRequest = z.input<typeof browserCreateRequestSchema>;
export type BrowserCreateRequestParsed = z.output<typeof browserCreateRequestSchema>;
export type BrowserDeleteRequest = z.input<typeof browserDeleteRequestSchema>;
export type BrowserListQuery = z.input<typeof browserListQuerySchema>;
