// What this worker has learned about services that refuse the idempotency key. The open-source
// server answers 500 UNKNOWN_ERROR to any POST /v2/crawl carrying `x-idempotency-key` (its key
// store needs a database); once a start without the key succeeded there, later starts against
// the same base URL omit the key at once instead of failing first. Worker memory, per base URL,
// never workflow state.

export type IdempotencySupport = 'unsupported';

export class IdempotencyMemory {
  private readonly refused = new Set<string>();

  /** True when a start against `baseUrl` failed with the key and succeeded without it. */
  refuses(baseUrl: string): boolean {
    return this.refused.has(baseUrl);
  }

  markRefused(baseUrl: string): void {
    this.refused.add(baseUrl);
  }
}
