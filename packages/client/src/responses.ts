// Lenient response handling: extra fields pass through untouched, and only what the
// client itself relies on is checked (an object, a job id on kickoff, a status string).
// Missing members that callers would otherwise have to guard are filled in, documented
// per function.
import { WebDataApiError } from './errors.js';
import type { HttpResult } from './http.js';
import type { BatchScrapeStartResponse, CancelJobResponse, CrawlStartResponse, JobErrorsResponse, JobStatusResponse } from 'webdata-contract';

type Obj = Record<string, unknown>;

function invalid(result: HttpResult, what: string, why: string): WebDataApiError {
  return new WebDataApiError({
    kind: 'server',
    status: result.status,
    code: 'INVALID_RESPONSE',
    retryable: true,
    requestId: result.requestId,
    message: `${what} returned an unexpected body: ${why}`,
  });
}

/** The body as an object; an empty 2xx body (e.g. a bare DELETE) becomes `{}`. */
export function asObject(result: HttpResult, what: string): Obj {
  if (result.body === undefined) return {};
  if (result.body === null || typeof result.body !== 'object' || Array.isArray(result.body)) {
    throw invalid(result, what, 'not a JSON object');
  }
  return result.body as Obj;
}

export function asJobStart(result: HttpResult, what: string): CrawlStartResponse & BatchScrapeStartResponse {
  const o = asObject(result, what);
  if (typeof o.id !== 'string' || o.id === '') throw invalid(result, what, 'no job id');
  return { ...o, success: o.success !== false, id: o.id, url: typeof o.url === 'string' ? o.url : '' };
}

/**
 * Status of a crawl or batch job. `data` defaults to [], `total`/`completed` to 0, and
 * `creditsUsed` to -1 ("unknown", as self-hosted deployments without billing report).
 * A kickoff failure (HTTP 200, `success: false, status: "failed"`) is returned, not thrown.
 */
export function asJobStatus(result: HttpResult, what: string): JobStatusResponse {
  const o = asObject(result, what);
  if (typeof o.status !== 'string') throw invalid(result, what, 'no status');
  return {
    ...o,
    status: o.status,
    total: typeof o.total === 'number' ? o.total : 0,
    completed: typeof o.completed === 'number' ? o.completed : 0,
    creditsUsed: typeof o.creditsUsed === 'number' ? o.creditsUsed : -1,
    data: Array.isArray(o.data) ? (o.data as JobStatusResponse['data']) : [],
  };
}

/** Cancel answers `{ status: "cancelled" }` without `success` on the hosted service. */
export function asCancel(result: HttpResult, what: string): CancelJobResponse {
  const o = asObject(result, what);
  return { ...o, status: typeof o.status === 'string' ? o.status : 'cancelled' };
}

export function asJobErrors(result: HttpResult, what: string): JobErrorsResponse {
  const o = asObject(result, what);
  return {
    ...o,
    errors: Array.isArray(o.errors) ? (o.errors as JobErrorsResponse['errors']) : [],
    robotsBlocked: Array.isArray(o.robotsBlocked) ? (o.robotsBlocked as string[]) : [],
  };
}

/** Objects whose shape the client does not depend on: checked to be an object, then typed. */
export function asTyped<T>(result: HttpResult, what: string): T {
  return asObject(result, what) as T;
}

/** Kickoff of agent and extract: `{ success, id }`. */
export function asIdStart(result: HttpResult, what: string): { success: boolean; id: string; [key: string]: unknown } {
  const o = asObject(result, what);
  if (typeof o.id !== 'string' || o.id === '') throw invalid(result, what, 'no job id');
  return { ...o, success: o.success !== false, id: o.id };
}

/**
 * Status of an agent or extract job: a status string is required; `success` defaults to
 * true unless the body says false. A failed job (HTTP 200, `status: "failed"`) is returned.
 */
export function asAgentStatus(result: HttpResult, what: string): { success: boolean; status: string; [key: string]: unknown } {
  const o = asObject(result, what);
  if (typeof o.status !== 'string') throw invalid(result, what, 'no status');
  return { ...o, success: o.success !== false, status: o.status };
}
