// One error class for every failure of the client, classified so activities can turn it
// into a retryable or non-retryable Temporal failure without looking at HTTP details.
import type { z } from 'zod';
import { formatIssues, summarizeIssues, type IssueDetail } from 'webdata-contract';
import { redactString, redactValue } from './redact.js';
import { retryAfterMs } from './retry-after.js';
import type { ErrorBody } from 'webdata-contract';

export type WebDataErrorKind =
  | 'validation'
  | 'unauthorized'
  | 'insufficient_credits'
  | 'forbidden'
  | 'not_found'
  | 'timeout'
  | 'conflict'
  | 'gone'
  | 'rate_limited'
  | 'server'
  | 'network';

export interface WebDataApiErrorInit {
  kind: WebDataErrorKind;
  message: string;
  status?: number;
  code?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  jobId?: string;
  requestId?: string;
  details?: unknown;
  body?: unknown;
  cause?: unknown;
}

export class WebDataApiError extends Error {
  override readonly name = 'WebDataApiError';
  readonly kind: WebDataErrorKind;
  /** HTTP status; undefined for local validation and network failures. */
  readonly status: number | undefined;
  /** Service error code (`BAD_REQUEST`, `SCRAPE_TIMEOUT`, ...) or a client code (`ABORTED`). */
  readonly code: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  /** Job concerned: the path id, or the `id` of a 409 body (idempotency recovery). */
  readonly jobId: string | undefined;
  readonly requestId: string | undefined;
  /** Validation issues (`[{ path, message }]`) or whatever the service sent as details. */
  readonly details: unknown;
  /** The parsed error body (redacted), e.g. the partial envelope of a support ask 504. */
  readonly body: unknown;

  constructor(init: WebDataApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs;
    this.jobId = init.jobId;
    this.requestId = init.requestId;
    this.details = init.details;
    this.body = init.body;
  }

  /** Plain data for logs and Temporal failure details; never contains the API key. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      status: this.status,
      code: this.code,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
      jobId: this.jobId,
      requestId: this.requestId,
      details: this.details,
    };
  }
}

export function isWebDataApiError(err: unknown): err is WebDataApiError {
  return err instanceof WebDataApiError;
}

/** Local validation failure: `crawl body: limit: must be at least 1`. */
export function validationError(what: string, error: z.ZodError): WebDataApiError {
  return new WebDataApiError({
    kind: 'validation',
    code: 'LOCAL_VALIDATION',
    message: `${what}: ${summarizeIssues(error)}`,
    details: formatIssues(error) satisfies IssueDetail[],
  });
}

function kindForStatus(status: number): { kind: WebDataErrorKind; retryable: boolean } {
  switch (status) {
    case 400:
    case 422:
    case 413:
      return { kind: 'validation', retryable: false };
    case 401:
      return { kind: 'unauthorized', retryable: false };
    case 402:
      return { kind: 'insufficient_credits', retryable: false };
    case 403:
      return { kind: 'forbidden', retryable: false };
    case 404:
      return { kind: 'not_found', retryable: false };
    case 408:
      return { kind: 'timeout', retryable: true };
    case 409:
      return { kind: 'conflict', retryable: false };
    case 410:
      return { kind: 'gone', retryable: false };
    case 429:
      return { kind: 'rate_limited', retryable: true };
    case 501:
      return { kind: 'server', retryable: false };
    default:
      if (status >= 500) return { kind: 'server', retryable: true };
      // Other 4xx (405, 415, ...) are a client mistake that a retry will not fix.
      return { kind: 'validation', retryable: false };
  }
}

export interface HttpErrorInput {
  status: number;
  body: unknown;
  retryAfterHeader: string | undefined;
  requestId: string;
  jobId?: string;
  apiKey: string;
  what: string;
}

/** Classifies a non-2xx response. */
export function httpError(input: HttpErrorInput): WebDataApiError {
  const { kind, retryable } = kindForStatus(input.status);
  const body = redactValue(input.body, input.apiKey);
  const errBody: ErrorBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as ErrorBody) : {};
  const text = typeof errBody.error === 'string' ? errBody.error : typeof errBody.message === 'string' ? errBody.message : undefined;
  const bodyId = typeof errBody.id === 'string' ? errBody.id : undefined;
  const message = redactString(`${input.what} failed with HTTP ${input.status}${text ? `: ${text}` : ''}`, input.apiKey);
  return new WebDataApiError({
    kind,
    status: input.status,
    code: typeof errBody.code === 'string' ? errBody.code : undefined,
    retryable,
    retryAfterMs: retryAfterMs(input.retryAfterHeader, text),
    jobId: (input.status === 409 ? bodyId : undefined) ?? input.jobId ?? bodyId,
    requestId: input.requestId,
    details: errBody.details,
    body,
    message,
  });
}
