// How a server without `appendToId` answers an append, turned into one typed `not_available`.
import { WebDataApiError } from './errors.js';

/** A route-less 404 is already not_available; a JSON 404, or a 400 naming appendToId, becomes one. */
export function appendNotAvailable(err: unknown, jobId: string): WebDataApiError | undefined {
  if (!(err instanceof WebDataApiError)) return undefined;
  if (err.kind === 'not_available') return err;
  const namesField = err.status === 400 && /appendToId/i.test(`${err.message} ${JSON.stringify(err.details ?? '')}`);
  if (err.status !== 404 && !namesField) return undefined;
  return new WebDataApiError({
    kind: 'not_available',
    status: err.status,
    code: 'NOT_AVAILABLE',
    retryable: false,
    jobId,
    requestId: err.requestId,
    body: err.body,
    message: `batch scrape append: not available on this service (appendToId): ${err.message}`,
    cause: err,
  });
}
