// Reads of sitemaps and map's walk pages that a busy or flaky site fails for a moment: a thrown
// fetch (reset, timeout of that request) or a 408/425/429/502/503/504 answer is tried again,
// twice, after a short pause. What still fails is reported as unread, so a caller that caches
// (map) does not keep a partial read for a week. A 500 is the page's answer (a broken page stays
// broken), as is any 4xx.
import { setTimeout as sleep } from 'node:timers/promises';
import { DestinationNotAllowedError, ResourceTooLargeError, type FetchedResource, type ResourceFetcher } from './fetcher.js';

/** Pauses before the second and third attempt. */
export const TRANSIENT_RETRY_DELAYS_MS = [250, 1000];

const TRANSIENT_STATUSES = new Set([408, 425, 429, 502, 503, 504]);

export function isTransientStatus(status: number): boolean {
  return TRANSIENT_STATUSES.has(status);
}

/** A read that failed for a reason that may pass; refusals (destination, size) are answers, not this. */
export function isTransientError(err: unknown): boolean {
  return !(err instanceof DestinationNotAllowedError || err instanceof ResourceTooLargeError);
}

export type ReadOutcome =
  | { kind: 'read'; res: FetchedResource }
  /** Still failing after the retries (or aborted): the caller's view of the site is partial. */
  | { kind: 'unread'; reason: string };

/**
 * Fetches `url`, retrying transient failures. A final transient status is `unread`; any other
 * status is `read` (a 404 sitemap is an answer). Rejects only with a non-transient error.
 */
export async function readResource(
  fetcher: ResourceFetcher, url: string, opts: { signal?: AbortSignal; maxBytes?: number; accept?: string },
  delays: readonly number[] = TRANSIENT_RETRY_DELAYS_MS,
): Promise<ReadOutcome> {
  let reason = '';
  for (let attempt = 0; attempt <= delays.length; attempt++) {
    if (attempt > 0 && !(await pause(delays[attempt - 1], opts.signal))) break;
    if (opts.signal?.aborted) break;
    try {
      const res = await fetcher.fetch(url, opts);
      if (!isTransientStatus(res.status)) return { kind: 'read', res };
      reason = `HTTP ${res.status}`;
    } catch (err) {
      if (!isTransientError(err)) throw err;
      reason = err instanceof Error ? err.message : String(err);
    }
  }
  return { kind: 'unread', reason: opts.signal?.aborted ? 'aborted' : reason };
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  return sleep(ms, true, { signal }).catch(() => false);
}
