// Webhook deliveries (section 6, contract notes "Webhooks"): signature over the exact
// raw bytes (`sha256=<hex>`) and a validated payload parser. We sign under
// `X-Service-Signature` (the reference's name); the hosted service's current server sends
// `X-Firecrawl-Signature`, so receivers accept both (`SIGNATURE_HEADERS`).
import { z } from 'zod';
import { WebDataApiError, validationError } from './errors.js';

// The signer and the header names are the contract's, shared with the local service.
export {
  SIGNATURE_HEADER,
  HOSTED_SIGNATURE_HEADER,
  SIGNATURE_HEADERS,
  signWebhookBody,
  verifyWebhookSignature,
} from 'webdata-contract/webhook-signature';

/**
 * Crawl and batch scrape event kinds this package understands. `*.failed` is in the
 * reference; the hosted service sends `crawl.cancelled` (undocumented) and no `*.failed`.
 * Every other kind (`extract.*`, `agent.*`, `monitor.*`, future kinds) is passed through.
 */
export const JOB_WEBHOOK_TYPES = [
  'crawl.started',
  'crawl.page',
  'crawl.completed',
  'crawl.failed',
  'crawl.cancelled',
  'batch_scrape.started',
  'batch_scrape.page',
  'batch_scrape.completed',
  'batch_scrape.failed',
  'batch_scrape.cancelled',
] as const;
export type JobWebhookType = (typeof JOB_WEBHOOK_TYPES)[number];
const jobTypes: ReadonlySet<string> = new Set(JOB_WEBHOOK_TYPES);

/** A crawl or batch scrape event as delivered; the open-source server sends no `webhookId`. */
export interface WebhookJobDelivery {
  success: boolean;
  type: JobWebhookType;
  /** Crawl or batch scrape job id. */
  id: string;
  /** Unique per delivery (retries share it); absent on the open-source server. */
  webhookId?: string;
  /** Page events: one page document; job events: empty. */
  data: unknown[];
  error?: string;
  /** The custom metadata of the webhook spec, echoed in every delivery. */
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Any other kind: only `type` is checked, the rest is passed through as sent. */
export interface OtherWebhookDelivery {
  type: string;
  [key: string]: unknown;
}

export type WebhookDelivery = WebhookJobDelivery | OtherWebhookDelivery;

/** True for a crawl or batch scrape event (validated as such by `parseWebhookPayload`). */
export function isJobDelivery(d: WebhookDelivery): d is WebhookJobDelivery {
  return jobTypes.has(d.type);
}

// Lenient: extra members pass; documents are objects whose content we do not constrain.
const documentSchema = z.looseObject({ metadata: z.looseObject({}).optional() });

const envelopeSchema = z.looseObject({ type: z.string().min(1) });

export const webhookPayloadSchema = z.looseObject({
  success: z.boolean(),
  type: z.enum(JOB_WEBHOOK_TYPES),
  id: z.string().min(1),
  webhookId: z.string().min(1).nullish(),
  data: z.array(z.unknown()),
  error: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
}).superRefine((p, ctx) => {
  if (p.type.endsWith('.page')) {
    p.data.forEach((d, i) => {
      if (!documentSchema.safeParse(d).success) ctx.addIssue({ code: 'custom', path: ['data', i], message: 'must be a page document object' });
    });
  }
});

/**
 * Parses a delivery body (raw JSON text, Buffer, or an already parsed object). Crawl and
 * batch scrape events are validated (`webhookId` optional); any other kind is returned as
 * sent, never refused, so a receiver can acknowledge and ignore it.
 */
export function parseWebhookPayload(raw: string | Buffer | unknown): WebhookDelivery {
  let value: unknown = raw;
  if (typeof raw === 'string' || Buffer.isBuffer(raw)) {
    try {
      value = JSON.parse(raw.toString('utf8')) as unknown;
    } catch {
      throw new WebDataApiError({ kind: 'validation', code: 'INVALID_JSON', message: 'webhook payload: not valid JSON' });
    }
  }
  const envelope = envelopeSchema.safeParse(value);
  if (!envelope.success) throw validationError('webhook payload', envelope.error);
  if (!jobTypes.has(envelope.data.type)) return envelope.data;
  const r = webhookPayloadSchema.safeParse(value);
  if (!r.success) throw validationError('webhook payload', r.error);
  const { error, metadata, webhookId, ...rest } = r.data;
  // Normalize nulls away so the typed payload has only the documented optional members.
  const out: WebhookJobDelivery = { ...rest };
  if (typeof webhookId === 'string') out.webhookId = webhookId;
  if (typeof error === 'string') out.error = error;
  if (metadata) out.metadata = metadata;
  return out;
}

export type { WebhookPayload, WebhookPagePayload, WebhookJobPayload, WebhookEventType } from 'webdata-contract';
