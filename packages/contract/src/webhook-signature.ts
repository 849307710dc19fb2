// Webhook signatures (section 6, contract notes "Webhooks"): `sha256=<hex>`, an HMAC-SHA256 of
// the exact raw bytes of the delivery body with the team's webhook secret. The one signer for
// the local service (which signs) and the client (which verifies). A subpath of its own
// (`webdata-contract/webhook-signature`) because it needs node:crypto, which the Temporal
// workflow bundle that imports the contract's main entry must not see.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header deliveries are signed under (the reference's name), lower case as Node reads it. */
export const SIGNATURE_HEADER = 'x-service-signature';
/** The header the hosted service's current server signs under. */
export const HOSTED_SIGNATURE_HEADER = 'x-firecrawl-signature';
/** Header names a receiver accepts a signature under, by default. */
export const SIGNATURE_HEADERS: readonly string[] = [HOSTED_SIGNATURE_HEADER, SIGNATURE_HEADER];

function hmacHex(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** The header value for a body: `sha256=<hex>`. */
export function signWebhookBody(rawBody: string | Buffer, secret: string): string {
  return `sha256=${hmacHex(rawBody, secret)}`;
}

/**
 * True only when `header` is `sha256=<64 hex>` and matches the HMAC of the exact raw
 * bytes. Compared in constant time; false (never a throw) on missing or malformed input.
 */
export function verifyWebhookSignature(rawBody: string | Buffer, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !secret) return false;
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!m) return false;
  const expected = Buffer.from(hmacHex(rawBody, secret), 'hex');
  const given = Buffer.from(m[1], 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
