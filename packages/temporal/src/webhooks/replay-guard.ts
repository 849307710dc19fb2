// Remembers delivered webhookIds for a while so a replayed delivery is refused.
export class ReplayGuard {
  private readonly seen = new Map<string, number>();
  constructor(private readonly ttlMs = 24 * 3600_000, private readonly max = 100_000) {}

  /** True the first time an id is seen within the TTL. */
  firstSighting(id: string, now = Date.now()): boolean {
    const at = this.seen.get(id);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.seen.delete(id);
    this.seen.set(id, now);
    // Map keeps insertion order: the oldest entries are evicted first.
    while (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value as string);
    return true;
  }

  forget(id: string): void {
    this.seen.delete(id);
  }
}
