// The error route handlers throw; the platform turns it into the JSON error body.

/** Thrown by handlers; the platform turns it into `{ success:false, error, code?, details? }`. */
export class HttpError extends Error {
  readonly status: number;
  readonly code?: string;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;
  /** Extra top-level members of the error body (e.g. `id` on an idempotency 409). */
  readonly extra?: Record<string, unknown>;
  /** The exact body to send instead of the uniform one (answers imitating another server). */
  readonly body?: unknown;
  constructor(
    status: number,
    message: string,
    init: { code?: string; details?: unknown; headers?: Record<string, string>; extra?: Record<string, unknown>; body?: unknown } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = init.code;
    this.details = init.details;
    this.headers = init.headers;
    this.extra = init.extra;
    this.body = init.body;
  }
}
