// The delivery body: `{ success, type, id, webhookId, data, error?, metadata }` (webdata-contract WebhookPayload).
import type { ScrapeDocument, WebhookJobPayload, WebhookPagePayload, WebhookPayload } from 'webdata-contract';
import type { WebhookEvent, WebhookSpec } from '../core/webhooks.js';

export type { WebhookPayload };

export function normalizeSpec(spec: WebhookSpec | string): WebhookSpec {
  return typeof spec === 'string' ? { url: spec } : spec;
}

/**
 * Events pass when no filter is set, or their suffix ("page" of "crawl.page") or, for monitor
 * webhooks whose filters name whole events, their full type is listed.
 */
export function passesFilter(spec: WebhookSpec, type: WebhookEvent['type']): boolean {
  if (!spec.events) return true;
  const suffix = type.slice(type.indexOf('.') + 1);
  const events = spec.events as string[];
  return events.includes(type) || (!type.startsWith('monitor.') && events.includes(suffix));
}

/** Page events carry the page's document (or `{ metadata: { sourceURL } }` for a failed page). */
function isPageEvent(event: WebhookEvent): event is WebhookEvent & { type: WebhookPagePayload['type']; data: ScrapeDocument[] } {
  return event.type === 'crawl.page' || event.type === 'batch_scrape.page';
}

export function buildPayload(spec: WebhookSpec, event: WebhookEvent, webhookId: string): WebhookPayload {
  const metadata = spec.metadata ?? {};
  // The documented member order: error (when set) before metadata.
  const error = event.error !== undefined ? { error: event.error } : {};
  if (isPageEvent(event)) {
    return { success: event.success, type: event.type, id: event.jobId, webhookId, data: event.data, ...error, metadata };
  }
  const type = event.type as WebhookJobPayload['type'];
  return { success: event.success, type, id: event.jobId, webhookId, data: event.data, ...error, metadata };
}

/** The body without `webhookId` (as the open-source server sends it), members in the same order. */
export function withoutWebhookId(payload: WebhookPayload): Omit<WebhookPayload, 'webhookId'> {
  const { webhookId: _webhookId, ...rest } = payload;
  return rest;
}
