// Remembers deliveries for a while so a replayed delivery is dropped. The hosted service
// gives each delivery a `webhookId` (its retries share it); the open-source server sends
// none, so there the delivery is recognized by a SHA-256 of its raw body.
import { createHash } from 'node:crypto';

/** The key a delivery is de-duplicated by: `webhookId:<id>`, or `sha256:<hex>` of the raw body. */
export function deliveryKey(webhookId: string | undefined, rawBody: string | Buffer): string {
  if (webhookId) return `webhookId:${webhookId}`;
  return `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
}

export class ReplayGuard {
  private readonly seen = new Map<string, number>();
  constructor(private readonly ttlMs = 24 * 3600_000, private readonly max = 100_000) {}

  /** True the first time a key (see `deliveryKey`) is seen within the TTL. */
  firstSighting(key: string, now = Date.now()): boolean {
    const at = this.seen.get(key);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.seen.delete(key);
    this.seen.set(key, now);
    // Map keeps insertion order: the oldest entries are evicted first.
    while (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value as string);
    return true;
  }

  forget(key: string): void {
    this.seen.delete(key);
  }
}
