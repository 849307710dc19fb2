// The delivery body: `{ success, type, id, webhookId, data, error?, metadata }`.
import type { WebhookEvent, WebhookSpec } from '../core/webhooks.js';

export interface WebhookPayload {
  success: boolean;
  type: WebhookEvent['type'];
  id: string;
  webhookId: string;
  data: unknown[];
  error?: string;
  metadata: Record<string, string>;
}

export function normalizeSpec(spec: WebhookSpec | string): WebhookSpec {
  return typeof spec === 'string' ? { url: spec } : spec;
}

/** Events pass when no filter is set or their suffix ("page" of "crawl.page") is listed. */
export function passesFilter(spec: WebhookSpec, type: WebhookEvent['type']): boolean {
  if (!spec.events) return true;
  const suffix = type.slice(type.indexOf('.') + 1);
  return (spec.events as string[]).includes(suffix);
}

export function buildPayload(spec: WebhookSpec, event: WebhookEvent, webhookId: string): WebhookPayload {
  const payload: WebhookPayload = {
    success: event.success,
    type: event.type,
    id: event.jobId,
    webhookId,
    data: event.data,
    metadata: spec.metadata ?? {},
  };
  if (event.error !== undefined) {
    // Keep the documented member order: error before metadata.
    return { success: payload.success, type: payload.type, id: payload.id, webhookId, data: payload.data, error: event.error, metadata: payload.metadata };
  }
  return payload;
}
