// The request pipeline: request id, routing, auth, faults, rate limit, JSON body,
// handler, uniform errors. Nothing a handler throws crashes the process.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpError } from '../core/http-error.js';
import type { RouteRequest } from '../core/routes.js';
import type { TeamRegistry } from '../config/teams.js';
import type { TeamFaultInjector } from '../faults/injector.js';
import { expressNotFound } from '../imitate/firecrawl-oss.js';
import { FAULT_HEADER, faultCoversRoute, pickRequestFault } from '../faults/request-faults.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { authenticate } from './auth.js';
import { MAX_BODY_BYTES, PayloadTooLargeError, readJsonBody, readRawBody } from './body.js';
import { errorBody, rateLimited } from './errors.js';
import { newRandomId } from './ids.js';
import type { ServiceLogger } from './logger.js';
import { sendJson } from './respond.js';
import { linkedSignal } from './signals.js';
import { MalformedPathError, type RouteMatch, type RouteTable } from './router.js';

export interface PlatformDeps {
  router: RouteTable;
  teams: TeamRegistry;
  limiter: RateLimiter;
  faults: TeamFaultInjector;
  now: () => number;
  log: ServiceLogger;
  /** Aborted when the service closes: handlers and injected latency stop waiting. */
  closeSignal: AbortSignal;
  bodyLimit?: number;
  /**
   * Imitating the open-source server: no x-request-id header, and a request no route
   * matches gets express's HTML 404 page (before auth, as there).
   */
  imitateOss?: boolean;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export function createRequestListener(deps: PlatformDeps): RequestListener {
  return (req, res) => {
    handle(deps, req, res).catch((err: unknown) => {
      deps.log.error('request pipeline failed', err);
      if (!res.headersSent) res.destroy();
    });
  };
}

async function handle(deps: PlatformDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = newRandomId();
  if (!deps.imitateOss) res.setHeader('x-request-id', requestId);
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  const extraHeaders: Record<string, string> = {};
  try {
    const match = matchRoute(deps, method, path);
    if (match.kind !== 'found') {
      const page = expressNotFound(method, url.pathname);
      sendJson(res, page.status, page.body, page.headers);
      return;
    }
    const { team, apiKey } = authenticate(req.headers, deps.teams);
    const route = { method, pattern: match.route.pattern, group: match.route.options.group };

    const faults = deps.faults.get(team.id);
    const fault = pickRequestFault(faults, route, deps.now(), () => deps.faults.errorDue(team.id));
    if (fault) throw fault.error;
    if (faults.latencyMs && faults.latencyMs > 0 && faultCoversRoute(faults, method, route.pattern)) {
      extraHeaders[FAULT_HEADER] = 'latency';
      await sleep(faults.latencyMs, undefined, { signal: deps.closeSignal });
    }

    const decision = deps.limiter.take(team, route.group);
    if (!decision.allowed) throw rateLimited(route.group, decision.retryAfterSec, decision.resetsAt);

    const rawLimit = match.route.options.rawBodyLimit;
    const body = rawLimit !== undefined ? await readUpload(req, rawLimit) : await readJsonBody(req, deps.bodyLimit ?? MAX_BODY_BYTES);
    const signal = requestSignal(res, deps.closeSignal);
    const routeRequest: RouteRequest = {
      method,
      path,
      params: match.params,
      query: url.searchParams,
      body,
      headers: req.headers,
      team,
      apiKey,
      requestId,
      baseUrl: baseUrlOf(req),
      signal,
    };
    const response = await match.route.handler(routeRequest);
    if (response.dropConnection) {
      req.socket.destroy();
      return;
    }
    sendJson(res, response.status ?? 200, response.body, { ...extraHeaders, ...response.headers });
  } catch (err) {
    sendError(deps, req, res, err, requestId, extraHeaders);
  }
}

/** An upload route's body: its bytes, or undefined when the request has none. */
async function readUpload(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const raw = await readRawBody(req, limit);
  return raw.length > 0 ? raw : undefined;
}

function matchRoute(deps: PlatformDeps, method: string, path: string): RouteMatch {
  let match;
  try {
    match = deps.router.match(method, path);
  } catch (err) {
    if (err instanceof MalformedPathError) throw new HttpError(400, `Bad Request: ${err.message}`, { code: 'BAD_REQUEST' });
    throw err;
  }
  // Express knows no 405: every unmatched method and path is its 404 page.
  if (deps.imitateOss && match.kind !== 'found') return match;
  if (match.kind === 'not_found') {
    throw new HttpError(404, `Not found: ${method} ${path} is not an endpoint of this service`, { code: 'NOT_FOUND' });
  }
  if (match.kind === 'method_not_allowed') {
    throw new HttpError(405, `Method not allowed: ${method} ${path} (allowed: ${match.allowed.join(', ')})`, {
      code: 'METHOD_NOT_ALLOWED',
      headers: { Allow: match.allowed.join(', ') },
    });
  }
  return match;
}

function sendError(
  deps: PlatformDeps,
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  requestId: string,
  extraHeaders: Record<string, string>,
): void {
  if (err instanceof HttpError) {
    if (err instanceof PayloadTooLargeError) {
      // The rest of the body is never read: answer, then close the connection.
      res.setHeader('connection', 'close');
      res.once('finish', () => req.socket.destroySoon());
    }
    sendJson(res, err.status, err.body !== undefined ? err.body : errorBody(err), { ...extraHeaders, ...err.headers });
    return;
  }
  if (deps.closeSignal.aborted) {
    sendJson(res, 503, { success: false, error: 'Service is shutting down', code: 'SERVICE_UNAVAILABLE' });
    return;
  }
  const exceptionId = newRandomId();
  deps.log.error(`unexpected error in ${req.method} ${req.url} (request ${requestId}, exception ${exceptionId})`, err);
  sendJson(res, 500, {
    success: false,
    error: `An unexpected error occurred. Please contact support with exception id ${exceptionId}.`,
    code: 'UNKNOWN_ERROR',
    exceptionId,
  }, extraHeaders);
}

/** Aborted when the client goes away before the answer, or when the service closes. */
function requestSignal(res: ServerResponse, closeSignal: AbortSignal): AbortSignal {
  const linked = linkedSignal(closeSignal);
  res.once('close', () => {
    if (!res.writableFinished) linked.abort(new Error('client disconnected'));
    linked.dispose();
  });
  return linked.signal;
}

/** The origin the client used, from the Host header, so absolute URLs in answers resolve for it. */
export function baseUrlOf(req: IncomingMessage): string {
  const forwardedProto = req.headers['x-forwarded-proto'];
  const proto = typeof forwardedProto === 'string' && /^https?$/.test(forwardedProto) ? forwardedProto : 'http';
  const host = req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
  return `${proto}://${host}`;
}
