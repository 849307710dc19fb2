// The internal contract between the parts of the local service. Each part (HTTP platform,
// jobs, scrape engine, browser, search, support) implements or consumes these shapes, so
// they can be built and tested apart and wired together in one place (service/src/app.ts).
import type { IncomingHttpHeaders } from 'node:http';

/** Route groups: the unit for rate limits, activity listing and pricing. */
export type RouteGroup =
  | 'scrape' | 'interact' | 'crawl' | 'crawl_status' | 'batch_scrape' | 'batch_status'
  | 'map' | 'search' | 'browser' | 'support' | 'team' | 'extract';

/** Endpoints as the activity listing names them (reference 4.4). */
export type ActivityEndpoint =
  | 'scrape' | 'crawl' | 'batch_scrape' | 'search' | 'extract' | 'llmstxt'
  | 'deep_research' | 'map' | 'agent' | 'browser' | 'interact';

export interface TeamFeatures {
  ignoreRobotsTxt: boolean;
  zeroDataRetention: boolean;
  /** Search `enterprise` options this team may use. */
  searchEnterprise: Array<'anon' | 'zdr'>;
}

export interface FaultConfig {
  /** Probability 0..1 that a request to a matching route answers `errorStatus`. */
  errorRate?: number;
  errorStatus?: number;
  /** Route patterns (e.g. "POST /v2/crawl", "GET /v2/crawl/:id") the error rate applies to; all when absent. */
  routes?: string[];
  /** Added latency per request, ms. */
  latencyMs?: number;
  /** While now < until, every request answers 429 with Retry-After = retryAfterSec. */
  rateLimitStorm?: { until: number; retryAfterSec: number };
  /** Drop (never deliver) this fraction of webhooks, 0..1; or delay each by delayMs. */
  webhookDropRate?: number;
  webhookDelayMs?: number;
  /** Jobs whose start URL matches this regex fail at kickoff. */
  failKickoffPattern?: string;
  /** Process the next N job-start requests (crawl/batch) but drop their response (socket closed). */
  dropNextStartResponses?: number;
}

export interface TeamConfig {
  id: string;
  apiKeys: string[];
  /** Plan credits per billing period (a calendar month). */
  credits: number;
  /** Requests per minute per route group; absent = unlimited. */
  rateLimits: Partial<Record<RouteGroup, number>>;
  /** Pages scraped at once across all of this team's jobs. */
  concurrency: number;
  maxBrowserSessions: number;
  /** HMAC secret for webhook signatures; no signature header when absent. */
  webhookSecret?: string;
  features: TeamFeatures;
  faults?: FaultConfig;
}

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

export interface RouteResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * Fault injection (`dropNextStartResponses`): the request has been processed, but the
   * platform destroys the socket instead of answering, as a lost response would look.
   */
  dropConnection?: boolean;
}

export type RouteHandler = (req: RouteRequest) => Promise<RouteResponse> | RouteResponse;

export interface RouteOptions {
  group: RouteGroup;
}

/** Registers handlers; patterns use `:name` segments, e.g. "/v2/crawl/:id/errors". */
export interface Router {
  add(method: 'GET' | 'POST' | 'DELETE', pattern: string, handler: RouteHandler, options: RouteOptions): void;
}

/** Thrown by handlers; the platform turns it into `{ success:false, error, code?, details? }`. */
export class HttpError extends Error {
  readonly status: number;
  readonly code?: string;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;
  /** Extra top-level members of the error body (e.g. `id` on an idempotency 409). */
  readonly extra?: Record<string, unknown>;
  constructor(
    status: number,
    message: string,
    init: { code?: string; details?: unknown; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = init.code;
    this.details = init.details;
    this.headers = init.headers;
    this.extra = init.extra;
  }
}

/** Credits: one ledger for every priced operation (prices live in billing/prices.ts). */
export interface CreditLedger {
  remaining(teamId: string): number;
  /** Records a charge; never throws for lack of credits (callers check `remaining` first). */
  charge(entry: { teamId: string; apiKey: string; credits: number; reason: string; jobId?: string; /** epoch ms; default now */ at?: number }): void;
  periods(teamId: string, byApiKey: boolean): Array<{ startDate: string; endDate: string; apiKey?: string; totalCredits: number }>;
  usage(teamId: string): { remainingCredits: number; planCredits: number; billingPeriodStart: string; billingPeriodEnd: string };
}

export interface ActivityRecord {
  id: string;
  teamId: string;
  endpoint: ActivityEndpoint;
  createdAt: number;
  target: string;
}

export interface ActivityLog {
  record(entry: ActivityRecord): void;
  list(teamId: string, opts: { endpoint?: ActivityEndpoint; limit: number; cursor?: string }): { data: ActivityRecord[]; cursor: string | null; hasMore: boolean };
}

/** A webhook as accepted in requests: a URL string or the object form of the contract notes. */
export interface WebhookSpec {
  url: string;
  headers?: Record<string, string>;
  metadata?: Record<string, string>;
  events?: Array<'started' | 'page' | 'completed' | 'failed'>;
}

export interface WebhookEvent {
  type: 'crawl.started' | 'crawl.page' | 'crawl.completed' | 'crawl.failed'
    | 'batch_scrape.started' | 'batch_scrape.page' | 'batch_scrape.completed' | 'batch_scrape.failed';
  jobId: string;
  success: boolean;
  data: unknown[];
  error?: string;
}

export interface WebhookDispatcher {
  /** Queues one delivery (signing, event filter, retries with the same webhookId); never throws. */
  send(team: TeamConfig, spec: WebhookSpec | string, event: WebhookEvent): void;
}

/** A scraped page document (reference 2.8 page document). */
export interface PageDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  images?: string[];
  screenshot?: string;
  summary?: string;
  json?: unknown;
  actions?: unknown;
  metadata: PageMetadata;
}

export interface PageMetadata {
  title?: string;
  description?: string;
  language?: string;
  keywords?: string;
  sourceURL: string;
  url: string;
  statusCode: number;
  contentType?: string;
  scrapeId: string;
  error?: string;
  proxyUsed?: string;
  creditsUsed?: number;
  [key: string]: unknown;
}

export interface ScrapeRequestContext {
  scrapeId: string;
  team: TeamConfig;
  signal?: AbortSignal;
}

export interface ScrapeOutcome {
  document: PageDocument;
  /** Every absolute http(s) link found on the page, for crawl discovery (independent of `formats`). */
  discoveredLinks: string[];
  /** Which engine produced the page. */
  engine: 'http' | 'browser';
  /** The exact options used, kept so interact can replay the page state. */
  options: Record<string, unknown>;
}

export interface ScrapeEngine {
  /**
   * Scrapes one URL with validated scrape options (the zod output of the scrape schema).
   * Throws HttpError (408 SCRAPE_TIMEOUT, 500 SCRAPE_ALL_ENGINES_FAILED, 400 for options
   * this engine cannot honour) on failure; non-2xx pages are documents with statusCode/error.
   */
  scrape(url: string, options: Record<string, unknown>, ctx: ScrapeRequestContext): Promise<ScrapeOutcome>;
  close(): Promise<void>;
}

/** A finished (or failed) single-page scrape, kept for GET /v2/scrape/{id} and interact replay. */
export interface ScrapeRecord {
  id: string;
  teamId: string;
  apiKey: string;
  url: string;
  /** Validated scrape options, replayed by interact (url, waitFor, actions...). */
  options: Record<string, unknown>;
  document: PageDocument | null;
  error?: string;
  /** The failure's HTTP status and code (e.g. 408 SCRAPE_TIMEOUT), for support diagnosis. */
  errorStatus?: number;
  errorCode?: string;
  createdAt: number;
  expiresAt: number;
  zeroDataRetention: boolean;
}

export interface ScrapeRecords {
  put(record: ScrapeRecord): void;
  /** undefined when unknown or expired. */
  get(id: string): ScrapeRecord | undefined;
  /** The team's unexpired records, newest first (support diagnosis). */
  byTeam?(teamId: string): ScrapeRecord[];
}

/**
 * The search index (POST /v2/search): every page the service scrapes can be added, so
 * search finds it. Callers must not index zero-data-retention documents, nor pages
 * fetched with request headers, cookies or a profile (they may be private to a team).
 */
export interface PageIndex {
  /** Adds or replaces the page (keyed by its canonical URL); never throws. */
  index(document: PageDocument): void;
}

/** Kinds of work support ask can inspect (reference 4.3). */
export type InspectedJobKind = 'crawl' | 'batch_scrape' | 'scrape' | 'interact' | 'browser';

/** A read-only view of one job (or scrape, or browser session) for support diagnosis. */
export interface JobView {
  id: string;
  kind: InspectedJobKind;
  teamId: string;
  /** Start URL (crawl), first URL (batch), page URL (scrape); absent for browser sessions. */
  url?: string;
  status: 'scraping' | 'completed' | 'failed' | 'cancelled' | 'active' | 'destroyed';
  createdAt: number;
  completedAt?: number;
  /** The request's validated options (crawl: with `scrapeOptions`; scrape: the scrape request). */
  options: Record<string, unknown>;
  /** Job-level failure (kickoff failure, failed scrape, session end reason). */
  error?: string;
  errorCode?: string;
  /** Pages scraped successfully, with what support needs of each (no content). */
  pages: Array<{ url: string; statusCode: number; contentChars: number; engine?: string }>;
  /** Page failures, as GET /v2/crawl/{id}/errors lists them. */
  errors: Array<{ url: string; code?: string; error: string }>;
  robotsBlocked: string[];
  creditsUsed: number;
  /** Browser sessions: lifetimes and how the session ended. */
  session?: { ttlSec?: number; activityTtlSec?: number; destroyedAt?: number; endReason?: string; scrapeId?: string };
}

/** Read access to the jobs of every kind, for support ask; callers check `teamId` themselves. */
export interface JobInspector {
  /** undefined when unknown or expired. */
  get(id: string): JobView | undefined;
  /** The team's most recent jobs, newest first. */
  recent(teamId: string, n: number): JobView[];
}

/** Fault injection, set per team in the config or at runtime (tests). */
export interface FaultInjector {
  get(teamId: string): FaultConfig;
  set(teamId: string, faults: FaultConfig | undefined): void;
  /** Whether a job for this URL must fail at kickoff. */
  failsKickoff(teamId: string, url: string): boolean;
  /** Decrements and returns true when the next job-start response must be dropped. */
  takeDroppedStartResponse(teamId: string): boolean;
}

export interface ServiceConfig {
  /** How long finished jobs and scrapes stay readable. Default 24 h. */
  jobTtlMs: number;
  webhook: { timeoutMs: number; retryDelaysMs: number[] };
  /** Only loopback destinations are fetched unless this is true. */
  allowNonLoopback: boolean;
  /** Largest serialized page of job results, bytes (10 MiB). */
  pageByteLimit: number;
  /** Hard time budget of one support ask, ms (reference section 8: 60 s); tests set less. */
  supportBudgetMs?: number;
}

/** What every route module receives; built once in service/src/app.ts. */
export interface ServiceContext {
  config: ServiceConfig;
  teams: { byId(id: string): TeamConfig | undefined; all(): TeamConfig[] };
  ledger: CreditLedger;
  activity: ActivityLog;
  webhooks: WebhookDispatcher;
  faults: FaultInjector;
  scrapeEngine: ScrapeEngine;
  scrapes: ScrapeRecords;
  /** Search index; scrape routes and jobs add the pages they scrape (search/ creates one when absent). */
  pageIndex?: PageIndex;
  /** Job records for support ask (support/ builds one over scrape records when absent). */
  jobInspector?: JobInspector;
  now(): number;
  /** Registers cleanup run by close(): stop timers, abort running jobs, close browsers. */
  onClose(fn: () => Promise<void> | void): void;
}
