// One error class for every failure of the client, classified so activities can turn it
// into a retryable or non-retryable Temporal failure without looking at HTTP details.
import type { z } from 'zod';
import { formatIssues, summarizeIssues, type IssueDetail } from 'webdata-contract';
import { redactString, redactValue } from './redact.js';
import { retryAfterMs } from './retry-after.js';
import { ERROR_KIND_RETRYABLE, type ErrorBody, type ErrorKind } from 'webdata-contract';

/** Every kind and its retryability live in the contract (`ERROR_KIND_RETRYABLE`). */
export type WebDataErrorKind = ErrorKind;

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

function kindForStatus(status: number): WebDataErrorKind {
  switch (status) {
    case 400:
    case 422:
    case 413:
      return 'validation';
    case 401:
      return 'unauthorized';
    case 402:
      return 'insufficient_credits';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 408:
      return 'timeout';
    case 409:
      return 'conflict';
    case 410:
      return 'gone';
    case 429:
      return 'rate_limited';
    default:
      if (status >= 500) return 'server';
      // Other 4xx (405, 415, ...) are a client mistake that a retry will not fix.
      return 'validation';
  }
}

/**
 * Codes of 5xx answers that a retry within minutes cannot change: the service lacks a setting
 * (no AI model configured) until its operator adds it.
 */
const PERMANENT_CODES: ReadonlySet<string> = new Set(['AI_NOT_CONFIGURED']);

/** The kind's retryability, except 501: not implemented stays so however often it is asked. */
function retryableStatus(status: number, kind: WebDataErrorKind, code?: string): boolean {
  return status !== 501 && !(code !== undefined && PERMANENT_CODES.has(code)) && ERROR_KIND_RETRYABLE[kind];
}

export interface HttpErrorInput {
  status: number;
  body: unknown;
  /** The body was not JSON (an HTML page of a framework's default 404, a proxy page, ...). */
  bodyNotJson?: boolean;
  /** A short excerpt of a non-JSON body (`Cannot GET /v2/...`), for the message. */
  bodyText?: string;
  /** `GET /v2/batch/scrape/{id}/errors`: names the missing route in a not_available message. */
  route?: string;
  retryAfterHeader: string | undefined;
  requestId: string;
  jobId?: string;
  apiKey: string;
  what: string;
}

/** Statuses that, without the API's JSON error body, mean "this route does not exist here". */
const ROUTE_MISSING_STATUSES = new Set([404, 405, 501]);

/** The API's error body: a JSON object carrying `error` (or `message`) or `success: false`. */
export function isApiErrorBody(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  return typeof b.error === 'string' || typeof b.message === 'string' || b.success === false;
}

/**
 * True for a 404/405/501 whose body is not the API's JSON error: the deployment has no such
 * route (the open-source server answers HTML `Cannot POST /v2/support/ask`), as opposed to a
 * JSON 404 `Job not found` from a route that exists.
 */
export function isRouteMissing(status: number, body: unknown, bodyNotJson = false): boolean {
  if (!ROUTE_MISSING_STATUSES.has(status)) return false;
  return bodyNotJson || !isApiErrorBody(body);
}

/** Classifies a non-2xx response. */
export function httpError(input: HttpErrorInput): WebDataApiError {
  if (isRouteMissing(input.status, input.body, input.bodyNotJson)) return notAvailableError(input);
  const kind = kindForStatus(input.status);
  const body = redactValue(input.body, input.apiKey);
  const errBody: ErrorBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as ErrorBody) : {};
  const retryable = retryableStatus(input.status, kind, typeof errBody.code === 'string' ? errBody.code : undefined);
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

function notAvailableError(input: HttpErrorInput): WebDataApiError {
  const excerpt = input.bodyText ? htmlExcerpt(input.bodyText) : '';
  const route = input.route ? ` (${input.route})` : '';
  const message = redactString(
    `${input.what}: not available on this service${route}: HTTP ${input.status}${excerpt ? ` ${excerpt}` : ''}`,
    input.apiKey,
  );
  return new WebDataApiError({
    kind: 'not_available',
    status: input.status,
    code: 'NOT_AVAILABLE',
    retryable: false,
    requestId: input.requestId,
    jobId: input.jobId,
    body: input.bodyNotJson ? undefined : redactValue(input.body, input.apiKey),
    message,
  });
}

/** `<pre>Cannot GET /v2/x</pre>` → `Cannot GET /v2/x` (tags stripped, at most 120 characters). */
function htmlExcerpt(text: string): string {
  // Express puts the message in <pre>; elsewhere drop the <head> (its <title> is noise).
  const pre = /<pre>([\s\S]*?)<\/pre>/i.exec(text)?.[1];
  const plain = (pre ?? text.replace(/<head[\s\S]*?<\/head>/i, '')).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return plain.length > 120 ? `${plain.slice(0, 117)}...` : plain;
}
