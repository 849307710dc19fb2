// Webhook specification of crawl and batch scrape requests (contract notes "Webhooks").
import { z } from 'zod';
import { headersSchema, httpUrl } from './common.js';

export const webhookEventSchema = z.enum(['started', 'page', 'completed', 'failed']);
/** Agent jobs (contract notes "What the hosted service added by 2026"): steps and cancellation too. */
export const agentWebhookEventSchema = z.enum(['started', 'action', 'completed', 'failed', 'cancelled']);

function specSchema<E extends z.ZodEnum>(events: E) {
  return z.union(
    [
      httpUrl,
      z.strictObject({
        url: httpUrl,
        headers: headersSchema.optional(),
        metadata: z.record(z.string(), z.string({ error: 'metadata values must be strings' })).optional(),
        events: z.array(events).optional(),
      }),
    ],
    { error: 'must be a URL string or an object with url' },
  );
}

export const webhookSpecSchema = specSchema(webhookEventSchema);
export const agentWebhookSpecSchema = specSchema(agentWebhookEventSchema);

export type WebhookEvent = z.infer<typeof webhookEventSchema>;
export type AgentWebhookEvent = z.infer<typeof agentWebhookEventSchema>;
export type WebhookSpec = z.input<typeof webhookSpecSchema>;
export type AgentWebhookSpec = z.input<typeof agentWebhookSpecSchema>;
