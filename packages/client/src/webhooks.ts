// Webhook deliveries (section 6, contract notes "Webhooks"): signature over the exact
// raw bytes (`X-Service-Signature: sha256=<hex>`) and a validated payload parser.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { WebDataApiError, validationError } from './errors.js';
import type { WebhookPayload } from 'webdata-contract';

export const SIGNATURE_HEADER = 'x-service-signature';

function hmacHex(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** The header value for a body: `sha256=<hex>`. */
export function signWebhookBody(rawBody: string | Buffer, secret: string): string {
  return `sha256=${hmacHex(rawBody, secret)}`;
}

/**
 * True only when `header` is `sha256=<64 hex>` and matches the HMAC of the exact raw
 * bytes. Compare in constant time; false (never a throw) on missing or malformed input.
 */
export function verifyWebhookSignature(rawBody: string | Buffer, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !secret) return false;
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!m) return false;
  const expected = Buffer.from(hmacHex(rawBody, secret), 'hex');
  const given = Buffer.from(m[1], 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const webhookTypes = [
  'crawl.started',
  'crawl.page',
  'crawl.completed',
  'crawl.failed',
  'batch_scrape.started',
  'batch_scrape.page',
  'batch_scrape.completed',
  'batch_scrape.failed',
] as const;

// Lenient: extra members pass; documents are objects whose content we do not constrain.
const documentSchema = z.looseObject({ metadata: z.looseObject({}).optional() });

export const webhookPayloadSchema = z.looseObject({
  success: z.boolean(),
  type: z.enum(webhookTypes),
  id: z.string().min(1),
  webhookId: z.string().min(1),
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

/** Parses a delivery body (raw JSON text, Buffer, or an already parsed object). */
export function parseWebhookPayload(raw: string | Buffer | unknown): WebhookPayload {
  let value: unknown = raw;
  if (typeof raw === 'string' || Buffer.isBuffer(raw)) {
    try {
      value = JSON.parse(raw.toString('utf8')) as unknown;
    } catch {
      throw new WebDataApiError({ kind: 'validation', code: 'INVALID_JSON', message: 'webhook payload: not valid JSON' });
    }
  }
  const r = webhookPayloadSchema.safeParse(value);
  if (!r.success) throw validationError('webhook payload', r.error);
  const { error, metadata, ...rest } = r.data;
  // Normalize nulls away so the typed payload has only the documented optional members.
  const out: Record<string, unknown> = { ...rest };
  if (typeof error === 'string') out.error = error;
  if (metadata) out.metadata = metadata;
  return out as unknown as WebhookPayload;
}

export type { WebhookPayload, WebhookPagePayload, WebhookJobPayload, WebhookEventType } from 'webdata-contract';
