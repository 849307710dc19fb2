// Failure mapping in one place: a WebDataApiError becomes an ApplicationFailure whose `type`
// is the error kind; client errors are non-retryable, transient ones retryable, and a
// Retry-After becomes `nextRetryDelay` so Temporal waits exactly as long as the service asked.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WebDataApiError, type WebDataErrorKind } from 'webdata-client';

const RETRYABLE_KINDS = new Set<WebDataErrorKind>(['rate_limited', 'timeout', 'server', 'network']);

export function isRetryableKind(kind: WebDataErrorKind): boolean {
  return RETRYABLE_KINDS.has(kind);
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
      nextRetryDelay: retryable && err.retryAfterMs !== undefined ? Math.max(err.retryAfterMs, 1) : undefined,
      details: [{ status: err.status ?? null, code: err.code ?? null, requestId: err.requestId ?? null, jobId: err.jobId ?? null }],
      cause: err,
    });
  }
  return err;
}

/** Runs an API call and rethrows its failure in Temporal's terms. */
export async function mapFailures<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toActivityFailure(err);
  }
}
