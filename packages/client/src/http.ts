// One HTTP attempt against the service: bearer auth, request id, timeout and caller
// abort, JSON in and out, and classification of every failure into WebDataApiError.
// No retries here: retries belong to Temporal (ARCHITECTURE principle 2).
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request, type Dispatcher, type FormData } from 'undici';
import { WebDataApiError, httpError } from './errors.js';
import { redactString } from './redact.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
/** The longest Retry-After a call waits out in place before it is sent. */
export const DEFAULT_MAX_HOLD_MS = 30_000;

export type QueryValue = string | number | boolean | undefined;

export interface HttpCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the base URL (`/v2/crawl`), or an absolute URL already checked to be same-origin. */
  target: string | URL;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** A multipart body (POST /v2/parse), sent instead of `body`; its content-type carries the boundary. */
  form?: FormData;
  headers?: Record<string, string>;
  /** Names the call in error messages: `crawl status`. */
  what: string;
  jobId?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface HttpResult {
  status: number;
  body: unknown;
  requestId: string;
}

export interface HttpTransportOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  userAgent?: string;
  /** Sees every request and its outcome (metrics, traces); never the API key or the URL's query. */
  observer?: RequestObserver;
  /** A pending Retry-After up to this long is waited out before a call is sent; longer fails it at once. Default 30 s. */
  maxHoldMs?: number;
  /** false: a Retry-After concerns only the call that got it (the caller paces itself). Default true. */
  holdOnRetryAfter?: boolean;
}

/** One request as an observer sees it: the route has ids replaced by `{id}` (`GET /v2/crawl/{id}`). */
export interface RequestStart {
  method: HttpCall['method'];
  route: string;
  /** The call's name in error messages: `crawl status`. */
  what: string;
}

export interface RequestOutcome extends RequestStart {
  /** HTTP status; absent when no response came (network error, timeout, abort). */
  status?: number;
  durationMs: number;
  /** The wait the service asked for in Retry-After (429, 503), in ms. */
  retryAfterMs?: number;
  /** WebDataApiError kind when the call failed (`rate_limited`, `timeout`, `network`...). */
  errorKind?: string;
}

/**
 * Observes the client's requests without depending on any telemetry library. `onRequest` runs
 * just before a request, in the caller's async context (so a tracer can start a child span);
 * the function it may return is called once with the outcome. An observer that throws is ignored.
 */
export interface RequestObserver {
  onRequest?(request: RequestStart): ((outcome: RequestOutcome) => void) | void;
  onResponse?(outcome: RequestOutcome): void;
}

/** Path segments that are ids (contain a digit, or are the call's job id) become `{id}`. */
function routeOf(call: HttpCall, pathname: string, basePath: string): string {
  const path = basePath && pathname.startsWith(basePath + '/') ? pathname.slice(basePath.length) : pathname;
  const route = path.split('/').map((seg) => (seg !== '' && (seg === call.jobId || /\d/.test(seg.replace(/^v\d+$/, ''))) ? '{id}' : seg)).join('/');
  return route;
}

/** The hold scope of a 503's Retry-After: every route. */
const ALL_ROUTES = '*';

function quietly<A extends unknown[], R>(fn: ((...args: A) => R) | undefined, ...args: A): R | undefined {
  try {
    return fn?.(...args);
  } catch {
    return undefined;
  }
}

// undici error codes that mean "the server took too long" rather than "no connection".
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export class HttpTransport {
  readonly baseUrl: URL;
  /** The base URL's path without its trailing slash: the prefix routes are relative to. */
  private readonly basePath: string;
  readonly origin: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  /** The connection pool requests go through (a sibling client of another key may share it). */
  readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly userAgent: string;
  private readonly observer: RequestObserver | undefined;
  private readonly maxHoldMs: number;
  private readonly holdOnRetryAfter: boolean;
  /**
   * Until when the service asked this client to wait (Retry-After), per scope. A 429 holds
   * every call of its route (the path with ids as `{id}`: all jobs' status reads share one),
   * not only the one that got it: a worker's activities share one client, and a second reader
   * of the same job must not ask again before then. Rate limits are per endpoint, so a 429 of
   * the map does not hold status reads. A 503 holds every route (`*`): the service is down.
   */
  private readonly holds = new Map<string, number>();
  /** GETs of one path in flight, chained: see `attempt`. */
  private readonly lanes = new Map<string, Promise<void>>();

  constructor(options: HttpTransportOptions) {
    this.apiKey = options.apiKey;
    this.baseUrl = new URL(options.baseUrl);
    this.basePath = this.baseUrl.pathname.replace(/\/$/, '');
    this.origin = this.baseUrl.origin;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // A keep-alive Agent by default so consecutive calls reuse connections.
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 16 });
    this.ownsDispatcher = options.dispatcher === undefined;
    this.userAgent = options.userAgent ?? 'webdata-temporal';
    this.observer = options.observer;
    this.maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    this.holdOnRetryAfter = options.holdOnRetryAfter ?? true;
  }

  /** Resolves `/v2/...` below the base URL, keeping a path prefix of the base if any. */
  resolve(target: string | URL, query?: Record<string, QueryValue>): URL {
    const url =
      target instanceof URL ? new URL(target.href) : new URL(this.basePath + target, this.baseUrl);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  async call(call: HttpCall): Promise<HttpResult> {
    // Resolved once per call: the lane, the Retry-After hold and the observer all key on it.
    const url = this.resolve(call.target, call.query);
    const route = routeOf(call, url.pathname, this.basePath);
    const observer = this.observer;
    if (!observer) return this.attempt(call, url, route);
    const start: RequestStart = { method: call.method, route, what: call.what };
    const end = quietly(observer.onRequest?.bind(observer), start);
    const began = performance.now();
    const report = (outcome: Omit<RequestOutcome, keyof RequestStart | 'durationMs'>) => {
      const full: RequestOutcome = { ...start, durationMs: performance.now() - began, ...outcome };
      if (typeof end === 'function') quietly(end, full);
      quietly(observer.onResponse?.bind(observer), full);
    };
    try {
      const result = await this.attempt(call, url, route);
      report({ status: result.status });
      return result;
    } catch (err) {
      const e = err instanceof WebDataApiError ? err : undefined;
      report({ status: e?.status, retryAfterMs: e?.retryAfterMs, errorKind: e?.kind ?? 'unknown' });
      throw err;
    }
  }

  /**
   * Waits out a pending Retry-After. A wait longer than maxHoldMs is not done in place: the call
   * fails at once as rate limited with the time left, and the caller's retry policy waits.
   */
  private async holdForRetryAfter(call: HttpCall, scope: string, requestId: string): Promise<void> {
    const now = Date.now();
    const left = Math.max(this.holdUntilFor(ALL_ROUTES, now), this.holdUntilFor(scope, now)) - now;
    if (left <= 0) return;
    if (left > this.maxHoldMs) {
      throw new WebDataApiError({
        kind: 'rate_limited',
        code: 'RETRY_AFTER_PENDING',
        retryable: true,
        retryAfterMs: left,
        requestId,
        jobId: call.jobId,
        message: `${call.what} not sent: the service asked to wait ${Math.ceil(left / 1000)} s more (Retry-After)`,
      });
    }
    try {
      await delay(left, undefined, call.signal ? { signal: call.signal } : undefined);
    } catch (err) {
      throw this.transportError(err, call, requestId, AbortSignal.timeout(call.timeoutMs ?? this.timeoutMs));
    }
  }

  /** The hold of a scope, forgotten once it has passed (the map stays as small as the live holds). */
  private holdUntilFor(scope: string, now: number): number {
    const until = this.holds.get(scope);
    if (until === undefined) return 0;
    if (until <= now) this.holds.delete(scope);
    return until;
  }

  private hold(scope: string, ms: number): void {
    const until = Date.now() + ms;
    if (until > (this.holds.get(scope) ?? 0)) this.holds.set(scope, until);
  }

  /**
   * GETs of the same path (one job's status, read by its follower and its poll) go one at a
   * time: a second reader is sent only after the first's answer was read, so a 429's
   * Retry-After always holds it. Without this, a read sent while the 429 was on the wire could
   * arrive just after it. Other requests are not chained.
   */
  private async attempt(call: HttpCall, url: URL, route: string): Promise<HttpResult> {
    if (call.method !== 'GET') return this.send(call, url, route);
    const key = url.pathname;
    const before = this.lanes.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => { release = resolve; });
    const tail = before ? before.then(() => mine) : mine;
    this.lanes.set(key, tail);
    try {
      if (before) await before;
      return await this.send(call, url, route);
    } finally {
      release();
      if (this.lanes.get(key) === tail) this.lanes.delete(key);
    }
  }

  private async send(call: HttpCall, url: URL, route: string): Promise<HttpResult> {
    const requestId = randomUUID();
    await this.holdForRetryAfter(call, route, requestId);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
      'user-agent': this.userAgent,
      'x-request-id': requestId,
      ...call.headers,
    };
    let payload: string | FormData | undefined;
    if (call.form !== undefined) {
      payload = call.form;
    } else if (call.body !== undefined) {
      payload = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const timeout = AbortSignal.timeout(call.timeoutMs ?? this.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;

    let status: number;
    let text: string;
    let responseHeaders: Record<string, string | string[] | undefined>;
    try {
      const res = await request(url, { method: call.method, headers, body: payload, dispatcher: this.dispatcher, signal });
      status = res.statusCode;
      responseHeaders = res.headers;
      text = await res.body.text();
    } catch (err) {
      throw this.transportError(err, call, requestId, timeout);
    }

    const serverRequestId = header(responseHeaders, 'x-request-id') ?? header(responseHeaders, 'request-id');
    const finalRequestId = serverRequestId ?? requestId;
    const body = parseBody(text);
    if (status < 200 || status >= 300) {
      const error = httpError({
        status,
        body: body.ok ? body.value : undefined,
        bodyNotJson: !body.ok,
        bodyText: body.ok ? undefined : text.slice(0, 2048),
        route: `${call.method} ${url.pathname}`,
        retryAfterHeader: header(responseHeaders, 'retry-after'),
        requestId: finalRequestId,
        jobId: call.jobId,
        apiKey: this.apiKey,
        what: call.what,
      });
      if (this.holdOnRetryAfter && (status === 429 || status === 503) && error.retryAfterMs !== undefined) {
        this.hold(status === 503 ? ALL_ROUTES : route, error.retryAfterMs);
      }
      throw error;
    }
    if (!body.ok) {
      // A 2xx that is not JSON is a proxy or deployment glitch, worth another attempt.
      throw new WebDataApiError({
        kind: 'server',
        status,
        code: 'INVALID_RESPONSE',
        retryable: true,
        requestId: finalRequestId,
        jobId: call.jobId,
        message: `${call.what} returned HTTP ${status} with a body that is not JSON`,
      });
    }
    return { status, body: body.value, requestId: finalRequestId };
  }

  /** Closes the connection pool this transport created (not a caller's dispatcher). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private transportError(err: unknown, call: HttpCall, requestId: string, timeout: AbortSignal): WebDataApiError {
    const base = { requestId, jobId: call.jobId, cause: err };
    // A caller abort is final (the caller decided), so it is kind network, not retryable,
    // code ABORTED; the original AbortError stays available as `cause`.
    if (call.signal?.aborted) {
      return new WebDataApiError({ ...base, kind: 'network', code: 'ABORTED', retryable: false, message: `${call.what} aborted by the caller` });
    }
    const code = (err as { code?: unknown } | null)?.code;
    if (timeout.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
      return new WebDataApiError({
        ...base,
        kind: 'timeout',
        code: 'CLIENT_TIMEOUT',
        retryable: true,
        message: `${call.what} timed out after ${call.timeoutMs ?? this.timeoutMs} ms`,
      });
    }
    const reason = err instanceof Error ? `${typeof code === 'string' ? `${code}: ` : ''}${err.message}` : String(err);
    return new WebDataApiError({
      ...base,
      kind: 'network',
      code: typeof code === 'string' ? code : 'NETWORK_ERROR',
      retryable: true,
      message: redactString(`${call.what} failed: network error (${reason})`, this.apiKey),
    });
  }
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
