// Error values the platform and route modules throw, and the uniform error body.
import type { ErrorBody as WireErrorBody } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';

export { HttpError };

/** The contract's error body, as the service always sends it: `success: false` and `error` set. */
export type ErrorBody = WireErrorBody & { success: false; error: string };

/** `{ success:false, error, code?, details?, ...extra }` for an HttpError. */
export function errorBody(err: HttpError): ErrorBody {
  const body: ErrorBody = { ...err.extra, success: false, error: err.message };
  if (err.code !== undefined) body.code = err.code;
  if (err.details !== undefined) body.details = err.details;
  return body;
}

export function badRequest(message: string, details?: unknown): HttpError {
  return new HttpError(400, message, { code: 'BAD_REQUEST', details });
}

export function notFound(message = 'Job not found'): HttpError {
  return new HttpError(404, message, { code: 'NOT_FOUND' });
}

export function forbidden(message: string): HttpError {
  return new HttpError(403, message, { code: 'FORBIDDEN' });
}

export function unauthorized(message: string): HttpError {
  return new HttpError(401, message, { code: 'UNAUTHORIZED' });
}

export function insufficientCredits(needed: number, remaining: number): HttpError {
  return new HttpError(
    402,
    `Insufficient credits to perform this request: ${needed} needed, ${remaining} remaining. Add credits or wait for the next billing period.`,
    { code: 'INSUFFICIENT_CREDITS' },
  );
}

/** 429 with the hosted service's message text and, better, a Retry-After header. */
export function rateLimited(group: string, retryAfterSec: number, resetsAt: number, code = 'RATE_LIMIT_EXCEEDED'): HttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterSec));
  return new HttpError(
    429,
    `Rate limit exceeded for ${group}: retry after ${seconds}s, resets at ${new Date(resetsAt).toISOString()}`,
    { code, headers: { 'Retry-After': String(seconds) } },
  );
}
