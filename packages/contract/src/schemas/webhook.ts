// Webhook specification of crawl and batch scrape requests (contract notes "Webhooks").
import { z } from 'zod';
import { headersSchema, httpUrl } from './common.js';

export const webhookEventSchema = z.enum(['started', 'page', 'completed', 'failed']);

export const webhookSpecSchema = z.union(
  [
    httpUrl,
    z.strictObject({
      url: httpUrl,
      headers: headersSchema.optional(),
      metadata: z.record(z.string(), z.string({ error: 'metadata values must be strings' })).optional(),
      events: z.array(webhookEventSchema).optional(),
    }),
  ],
  { error: 'must be a URL string or an object with url' },
);

export type WebhookEvent = z.infer<typeof webhookEventSchema>;
export type WebhookSpec = z.input<typeof webhookSpecSchema>;
