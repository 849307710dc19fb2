// Kinds of failure a call to the service ends in, and whether trying again can help. The HTTP
// client classifies every outcome as one kind; the Temporal activities and retry policies read
// retryability from here (plain data, so workflows may import it too).

/** Every error kind, with whether a retry of the same call can succeed. */
export const ERROR_KIND_RETRYABLE = {
  validation: false,
  unauthorized: false,
  forbidden: false,
  not_found: false,
  /** The route does not exist on this deployment (HTML `Cannot POST /v2/...` 404): a missing feature, not a missing job. */
  not_available: false,
  gone: false,
  insufficient_credits: false,
  conflict: false,
  rate_limited: true,
  timeout: true,
  /** Retryable as a kind; a 501 (not implemented) is marked non-retryable on the error itself. */
  server: true,
  network: true,
} as const satisfies Record<string, boolean>;

export type ErrorKind = keyof typeof ERROR_KIND_RETRYABLE;

export const ERROR_KINDS = Object.keys(ERROR_KIND_RETRYABLE) as ErrorKind[];
export const RETRYABLE_ERROR_KINDS: ErrorKind[] = ERROR_KINDS.filter((k) => ERROR_KIND_RETRYABLE[k]);
export const NON_RETRYABLE_ERROR_KINDS: ErrorKind[] = ERROR_KINDS.filter((k) => !ERROR_KIND_RETRYABLE[k]);
