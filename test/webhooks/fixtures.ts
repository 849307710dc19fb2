// Webhook deliveries as the servers users run send them, byte for byte in their member order.
//
// - Hosted service (contract notes "Webhooks"): body `{ success, type, id, webhookId, data,
//   error?, metadata }` as `JSON.stringify(payload)`, signed `sha256=<hex>` under
//   `X-Firecrawl-Signature`, next to `X-Firecrawl-Event`, `X-Firecrawl-Job-Id`,
//   `X-Firecrawl-Webhook-Id` and `X-Firecrawl-Delivery-Mode`.
// - Open-source server (firecrawl commit 0fac8fb, apps/api/src/services/webhook.ts, sent by
//   axios): body `{ success, type, id, data, error?, metadata }` (`error` left out when
//   undefined, `metadata` defaults to `{}`), no signature header, no `webhookId`; only
//   `Content-Type` plus the webhook spec's own headers.
//
// `SAMPLES` holds literal deliveries in those shapes, written from those sources (not captured
// from a live server: the ids, the extract `data` and the delivery-mode value are
// illustrative); `hosted()` and `openSource()` build fresh ones (a test names its own
// workflow and job) in exactly the same layout.
import { randomUUID } from 'node:crypto';
import { signWebhookBody } from '../../packages/client/src/webhooks.js';

export interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/** Literal deliveries (workflow `wf-recorded`). */
export const SAMPLES = {
  hostedCrawlStarted: {
    body: '{"success":true,"type":"crawl.started","id":"0198f2a1-5c3e-7b9a-8d41-2f6e0c9b7a10","webhookId":"0198f2a1-5c40-7e12-9b3a-6d5c4e3f2a18","data":[],"metadata":{"workflowId":"wf-recorded"}}',
    headers: {
      'content-type': 'application/json',
      'x-firecrawl-event': 'crawl.started',
      'x-firecrawl-job-id': '0198f2a1-5c3e-7b9a-8d41-2f6e0c9b7a10',
      'x-firecrawl-webhook-id': '0198f2a1-5c40-7e12-9b3a-6d5c4e3f2a18',
      'x-firecrawl-delivery-mode': 'async',
    },
  },
  hostedCrawlPageFailed: {
    body: '{"success":false,"type":"crawl.page","id":"0198f2a1-5c3e-7b9a-8d41-2f6e0c9b7a10","webhookId":"0198f2a1-61d2-7c55-a0e4-93b1f7d2c604","data":[{"metadata":{"sourceURL":"https://example.com/broken"}}],"error":"HTTP 500","metadata":{"workflowId":"wf-recorded"}}',
    headers: { 'content-type': 'application/json', 'x-firecrawl-event': 'crawl.page' },
  },
  hostedCrawlCancelled: {
    body: '{"success":true,"type":"crawl.cancelled","id":"0198f2a1-5c3e-7b9a-8d41-2f6e0c9b7a10","webhookId":"0198f2a1-7a09-7f3d-8c62-0b1e5a4d9c27","data":[],"metadata":{"workflowId":"wf-recorded"}}',
    headers: { 'content-type': 'application/json', 'x-firecrawl-event': 'crawl.cancelled' },
  },
  hostedExtractCompleted: {
    body: '{"success":true,"type":"extract.completed","id":"0198f2b0-0a1b-7c2d-9e3f-4a5b6c7d8e9f","webhookId":"0198f2b0-0b2c-7d3e-8f4a-5b6c7d8e9fa0","data":{"answer":42},"metadata":{"workflowId":"wf-recorded"}}',
    headers: { 'content-type': 'application/json', 'x-firecrawl-event': 'extract.completed' },
  },
  openSourceCrawlCompleted: {
    body: '{"success":true,"type":"crawl.completed","id":"6c1f3e2a-9b8d-4c7e-a5f6-0e1d2c3b4a59","data":[],"metadata":{"workflowId":"wf-recorded"}}',
    headers: { 'content-type': 'application/json' },
  },
  openSourceBatchPage: {
    body: '{"success":true,"type":"batch_scrape.page","id":"6c1f3e2a-9b8d-4c7e-a5f6-0e1d2c3b4a59","data":[{"markdown":"# Hello","metadata":{"sourceURL":"http://127.0.0.10:8000/","statusCode":200,"scrapeId":"1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a"}}],"metadata":{"workflowId":"wf-recorded"}}',
    headers: { 'content-type': 'application/json' },
  },
} satisfies Record<string, Delivery>;

export interface EventSpec {
  type: string;
  workflowId: string;
  jobId?: string;
  data?: unknown;
  success?: boolean;
  error?: string;
}

/** A hosted-service delivery; signed under X-Firecrawl-Signature when `secret` is given. */
export function hosted(event: EventSpec, secret?: string, webhookId: string = randomUUID()): Delivery & { webhookId: string; jobId: string } {
  const jobId = event.jobId ?? randomUUID();
  const body = JSON.stringify({
    success: event.success ?? true,
    type: event.type,
    id: jobId,
    webhookId,
    data: event.data === undefined ? [] : event.data,
    error: event.error,
    metadata: { workflowId: event.workflowId },
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-firecrawl-event': event.type,
    'x-firecrawl-job-id': jobId,
    'x-firecrawl-webhook-id': webhookId,
    'x-firecrawl-delivery-mode': 'async',
  };
  if (secret) headers['x-firecrawl-signature'] = signWebhookBody(body, secret);
  return { body, headers, webhookId, jobId };
}

/** An open-source-server delivery: unsigned, no webhookId. */
export function openSource(event: EventSpec): Delivery & { jobId: string } {
  const jobId = event.jobId ?? randomUUID();
  const body = JSON.stringify({
    success: event.success ?? true,
    type: event.type,
    id: jobId,
    data: event.data === undefined ? [] : event.data,
    error: event.error,
    metadata: { workflowId: event.workflowId },
  });
  return { body, headers: { 'content-type': 'application/json' }, jobId };
}
