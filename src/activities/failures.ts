// Failure mapping in one place: a WebDataApiError becomes an ApplicationFailure whose `type`
// is the error kind; client errors are non-retryable, transient ones retryable, and a
// Retry-After becomes `nextRetryDelay` so Temporal waits at least as long as the service asked.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WebDataApiError, type WebDataErrorKind } from 'webdata-client';
import { ERROR_KIND_RETRYABLE } from 'webdata-contract';
import { StoreError } from 'webdata-storage';
import { currentRetry } from './context.js';

export function isRetryableKind(kind: WebDataErrorKind): boolean {
  return ERROR_KIND_RETRYABLE[kind];
}

export function toActivityFailure(err: unknown): unknown {
  if (err instanceof ApplicationFailure || err instanceof CancelledFailure) return err;
  if (err instanceof WebDataApiError) {
    // A 501 or similar "server" answer the client marked permanent stays permanent.
    const retryable = isRetryableKind(err.kind) && (err.kind !== 'server' || err.retryable);
    return ApplicationFailure.create({
      message: err.message,
      type: err.kind,
      nonRetryable: !retryable,
      nextRetryDelay: retryable && err.retryAfterMs !== undefined ? retryDelayMs(err.retryAfterMs) : undefined,
      details: [{ status: err.status ?? null, code: err.code ?? null, requestId: err.requestId ?? null, jobId: err.jobId ?? null }],
      cause: err,
    });
  }
  if (err instanceof StoreError) {
    // Typed `store_<kind>` (store_lock_timeout, store_no_space...), so a deployment can list one as non-retryable.
    return ApplicationFailure.create({
      message: err.message,
      type: `store_${err.kind}`,
      nonRetryable: !err.retryable,
      details: [{ path: err.path, code: err.code ?? null }],
      cause: err,
    });
  }
  return err;
}

/**
 * The wait before the next attempt after a Retry-After: what the service asked, and never less
 * than the activity's own backoff for this attempt (with up to 20% jitter). Waiting only the
 * Retry-After (often 1 s under a sliding window) spent a crowd's attempts one second apart: in
 * the full scale profile a run's batch start used its 8 attempts in seconds while 200 runs
 * shared 120 starts a minute, and the stage failed. With the backoff they span minutes.
 */
export function retryDelayMs(retryAfterMs: number): number {
  let backoff = 0;
  const retry = currentRetry();
  if (retry?.policy) {
    const { policy } = retry;
    const initial = typeof policy.initialInterval === 'number' ? policy.initialInterval : 1_000;
    const coefficient = policy.backoffCoefficient ?? 2;
    const max = typeof policy.maximumInterval === 'number' ? policy.maximumInterval : initial * 100;
    backoff = Math.min(max, initial * coefficient ** Math.max(0, retry.attempt - 1)) * (1 + Math.random() * 0.2);
  }
  return Math.max(Math.round(retryAfterMs), Math.round(backoff), 1);
}

/** Runs an API call and rethrows its failure in Temporal's terms. */
export async function mapFailures<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toActivityFailure(err);
  }
}
