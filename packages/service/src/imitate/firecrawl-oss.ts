// `service.imitate: "firecrawl-oss"`: where the open-source Firecrawl server (commit 0fac8fb,
// /work/shared/contract-notes.md "Observed on the open-source server") differs from the
// reference in ways a client must tolerate, the service answers as that server does, so the
// fast tests cover those differences. Everything else still follows the reference.
//
// The modules apply it where the behaviour lives: the platform (express 404 pages, no
// x-request-id), app.ts (routes left out), jobs (status paging, cancel, unknown job,
// idempotency keys), map (bare links) and the webhook dispatcher (no webhookId, unsigned).
import type { IncomingHttpHeaders } from 'node:http';
import type { MapLink } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { Router } from '../core/routes.js';
import type { ServiceConfig } from '../core/service.js';
import { newRandomId } from '../http/ids.js';
import { isUuid } from '../http/validate.js';

/** True when the service imitates the open-source server. */
export function imitatesOss(config: Pick<ServiceConfig, 'imitate'>): boolean {
  return config.imitate === 'firecrawl-oss';
}

/** Routes that server does not have (each answers its express 404 page). */
export function missingOnOss(method: string, pattern: string): boolean {
  if (pattern === '/v2/browser' || pattern.startsWith('/v2/browser/')) return true;
  if (pattern === '/v2/scrape/:jobId/interact') return true;
  if (pattern === '/v2/support/ask') return true;
  // Its v2 router (apps/api/src/routes/v2.ts) has extract but no agent and no parse.
  if (pattern === '/v2/agent' || pattern.startsWith('/v2/agent/') || pattern === '/v2/parse') return true;
  // Monitor came to the hosted service after that commit.
  if (pattern === '/v2/monitor' || pattern.startsWith('/v2/monitor/')) return true;
  if (pattern === '/v2/team/activity' || pattern === '/v2/team/credit-usage/historical') return true;
  return method === 'GET' && pattern === '/v2/batch/scrape/:id/errors';
}

/** A router that silently leaves out the routes `missing` names. */
export function routerWithout(router: Router, missing: (method: string, pattern: string) => boolean): Router {
  return {
    add(method, pattern, handler, options) {
      if (!missing(method, pattern)) router.add(method, pattern, handler, options);
    },
  };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Express's (finalhandler's) answer to a request no route matched. */
export function expressNotFound(method: string, pathname: string): { status: 404; headers: Record<string, string>; body: string } {
  const message = `Cannot ${method} ${pathname}`.replace(/[&<>"']/g, (c) => ESCAPES[c]);
  const body = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${message}</pre>\n</body>\n</html>\n`;
  return {
    status: 404,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'",
      'x-content-type-options': 'nosniff',
    },
    body,
  };
}

/** That server's answer to an exception in a handler: 500 UNKNOWN_ERROR naming an exception ID. */
export function ossUnknownError(): HttpError {
  const id = newRandomId();
  const error = `An unexpected error occurred. Please contact help@firecrawl.com for help. Your exception ID is ${id}`;
  return new HttpError(500, error, { code: 'UNKNOWN_ERROR', body: { success: false, code: 'UNKNOWN_ERROR', error } });
}

/**
 * `x-idempotency-key` on POST /v2/crawl: the key store needs a database that deployment
 * lacks, so any UUID key fails with 500 (on every retry); a non-UUID key is "already used".
 */
export function ossCrawlIdempotency(headers: IncomingHttpHeaders): void {
  const raw = headers['x-idempotency-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key === '') return;
  if (!isUuid(key)) {
    const error = 'Idempotency key already used';
    throw new HttpError(409, error, { body: { success: false, error } });
  }
  throw ossUnknownError();
}

/** 404 for an unknown job: status and errors routes keep `success: false`, cancel does not. */
export function ossJobNotFound(withSuccess: boolean): HttpError {
  const error = 'Job not found';
  return new HttpError(404, error, { body: withSuccess ? { success: false, error } : { error } });
}

/** Map links as that server gives them: only `url`, trailing slashes stripped, first of equals kept. */
export function ossMapLinks(links: ReadonlyArray<MapLink>): MapLink[] {
  const seen = new Set<string>();
  const out: MapLink[] = [];
  for (const link of links) {
    const url = link.url.replace(/\/+$/, '');
    if (seen.has(url)) continue;
    seen.add(url);
    out.push({ url });
  }
  return out;
}
