// Routes as the HTTP platform (http/) and the route modules see them: groups, requests, answers.
import type { IncomingHttpHeaders } from 'node:http';
import type { TeamConfig } from './teams.js';

/** Route groups: the unit for rate limits, activity listing and pricing. */
export type RouteGroup =
  | 'scrape' | 'interact' | 'crawl' | 'crawl_status' | 'batch_scrape' | 'batch_status'
  | 'map' | 'search' | 'browser' | 'support' | 'team' | 'extract' | 'monitor';

/** A request as a route handler sees it, after auth, rate limit and JSON parsing. */
export interface RouteRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingHttpHeaders;
  team: TeamConfig;
  apiKey: string;
  requestId: string;
  /** Origin the client used, e.g. "http://127.0.0.1:3002": absolute URLs in responses are built from it. */
  baseUrl: string;
  signal: AbortSignal;
}

/**
 * A handler's answer. Route modules annotate theirs with the response types of
 * webdata-contract (`RouteResponse<ScrapeResponse>`...), so an answer the client does not
 * type is a compile error.
 */
export interface RouteResponse<B = unknown> {
  status?: number;
  body: B;
  headers?: Record<string, string>;
  /**
   * Fault injection (`dropNextStartResponses`): the request has been processed, but the
   * platform destroys the socket instead of answering, as a lost response would look.
   */
  dropConnection?: boolean;
}

/** An answer never sent: the platform drops the connection (the caller went away, or a fault). */
export interface DroppedResponse extends RouteResponse<null> {
  dropConnection: true;
}

export type RouteHandler = (req: RouteRequest) => Promise<RouteResponse> | RouteResponse;

export interface RouteOptions {
  group: RouteGroup;
  /**
   * The body is read as raw bytes (a Buffer in `body`, undefined when empty) up to this many
   * bytes, instead of as JSON under the 10 MB cap: uploads (POST /v2/parse).
   */
  rawBodyLimit?: number;
}

/** Registers handlers; patterns use `:name` segments, e.g. "/v2/crawl/:id/errors". */
export interface Router {
  add(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', pattern: string, handler: RouteHandler, options: RouteOptions): void;
}
