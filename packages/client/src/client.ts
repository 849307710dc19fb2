// WebDataClient: one method per v2 endpoint. Every input is validated with the shared
// request schemas before any byte is sent; every call is exactly one HTTP attempt.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Dispatcher } from 'undici';
import { WebDataApiError, validationError } from './errors.js';
import { HttpTransport, type HttpCall, type RequestObserver } from './http.js';
export type { RequestObserver, RequestOutcome, RequestStart } from './http.js';
import { appendNotAvailable } from './batch-append.js';
import { followPages } from './pagination.js';
import { asAgentStatus, asCancel, asIdStart, asJobErrors, asJobStart, asJobStatus, asTyped } from './responses.js';
import { readUpload, uploadForm, type ParseFileInput, type ParseFileOptions } from './upload.js';
import {
  activityQuerySchema,
  agentRequestSchema,
  batchScrapeRequestSchema,
  browserCreateRequestSchema,
  browserListQuerySchema,
  crawlParamsPreviewRequestSchema,
  crawlRequestSchema,
  extractRequestSchema,
  historicalCreditUsageQuerySchema,
  historicalTokenUsageQuerySchema,
  interactRequestSchema,
  jobStatusQuerySchema,
  createMonitorRequestSchema,
  listMonitorChecksQuerySchema,
  listMonitorsQuerySchema,
  monitorCheckQuerySchema,
  updateMonitorRequestSchema,
  mapRequestSchema,
  parseOptionsSchema,
  scrapeRequestSchema,
  searchRequestSchema,
  supportAskRequestSchema,
  uuid,
  nonEmpty,
  addressAllowanceOf,
  parseAddressAllowance,
  ALLOW_PRIVATE_ADDRESSES_ENV,
  type AddressAllowance,
  type PrivateAddressOption,
  privateUrlIssues,
  type ActivityQuery,
  type AgentRequest,
  type BatchScrapeRequest,
  type BrowserCreateRequest,
  type BrowserListQuery,
  type CrawlParamsPreviewRequest,
  type CrawlRequest,
  type ExtractRequest,
  type HistoricalCreditUsageQuery,
  type HistoricalTokenUsageQuery,
  type InteractRequest,
  type JobStatusQuery,
  type CreateMonitorRequest,
  type ListMonitorChecksQuery,
  type ListMonitorsQuery,
  type MonitorCheckQuery,
  type UpdateMonitorRequest,
  type MapRequest,
  type ParseOptions,
  type ScrapeRequest,
  type SearchRequest,
  type SupportAskRequest,
} from 'webdata-contract';
import type {
  ActiveCrawlsResponse,
  ActivityResponse,
  AgentCancelResponse,
  AgentStartResponse,
  AgentStatusResponse,
  BatchScrapeStartResponse,
  BrowserCreateResponse,
  BrowserDeleteResponse,
  BrowserListResponse,
  CancelJobResponse,
  CrawlParamsPreviewResponse,
  CrawlStartResponse,
  CreditUsageResponse,
  ExtractResponse,
  ExtractStartResponse,
  HistoricalCreditUsageResponse,
  HistoricalTokenUsageResponse,
  InteractResult,
  InteractStopResult,
  JobErrorsResponse,
  JobStatusResponse,
  MapResponse,
  MonitorCheck,
  MonitorCheckDetailResponse,
  MonitorCheckListResponse,
  MonitorDeleteResponse,
  MonitorListResponse,
  MonitorResponse,
  MonitorRunResponse,
  ParseResponse,
  QueueStatusResponse,
  ScrapeResponse,
  SearchResponse,
  SupportAnswer,
  TokenUsageResponse,
} from 'webdata-contract';

export interface WebDataClientOptions {
  apiKey: string;
  /** e.g. `https://api.example.com` or `http://127.0.0.1:3002`; paths `/v2/...` go below it. */
  baseUrl: string;
  /** Per-request deadline; default 60 s. Overridable per call. */
  timeoutMs?: number;
  /** A custom undici dispatcher (Pool, Agent, MockAgent...). Default: a keep-alive Agent. */
  dispatcher?: Dispatcher;
  userAgent?: string;
  /**
   * Sees every request and its outcome: route (ids as `{id}`), method, status, duration and the
   * Retry-After asked for. For metrics and traces (the worker wires it); never sees the API key.
   */
  observer?: RequestObserver;
  /**
   * After a 429 with Retry-After, every call of this client to that route (ids as `{id}`), and
   * after a 503 with Retry-After every call, waits until that time before it is sent, up to
   * this long (default 30 s); a longer wait fails the call at once as
   * `rate_limited` with `retryAfterMs` (code RETRY_AFTER_PENDING), for the caller's retry policy.
   */
  maxHoldMs?: number;
  /** false: a Retry-After concerns only the call that got it (the caller paces itself). Default true. */
  holdOnRetryAfter?: boolean;
  /**
   * Private hosts (loopback, private, link-local...) the URLs of a body may name: a list of `host`
   * or `host:port` (e.g. `['127.0.0.1:3003']`), `false` none, `true` all (the blanket allowance,
   * kept for compatibility). Default from WEBDATA_ALLOW_PRIVATE_ADDRESSES (off): the URLs in a
   * body are often a tenant's.
   */
  allowPrivateAddresses?: PrivateAddressOption;
}

/** Last optional argument of every method. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface StartJobOptions extends RequestOptions {
  /** Sent as `x-idempotency-key` (a UUID): a retried start does not start a second job. */
  idempotencyKey?: string;
}

/** The file options of `parse`, and the parse `options` sent beside the file as JSON. */
export interface ParseRequest extends ParseFileOptions {
  options?: ParseOptions;
}

/** A page of a job status: `{ skip, limit }`, or a `next` URL from a previous page. */
export type JobStatusPage = JobStatusQuery | string;

export class WebDataClient {
  private readonly http: HttpTransport;
  private readonly allowance: AddressAllowance;
  private readonly options: WebDataClientOptions;
  /** An opaque id of the API team this client speaks for: a hash of base URL and key, never the key. */
  readonly teamId: string;

  constructor(options: WebDataClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new WebDataApiError({ kind: 'validation', code: 'LOCAL_VALIDATION', message: 'client options: apiKey: is required' });
    }
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new WebDataApiError({ kind: 'validation', code: 'LOCAL_VALIDATION', message: 'client options: baseUrl: must be a valid http(s) URL' });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new WebDataApiError({ kind: 'validation', code: 'LOCAL_VALIDATION', message: 'client options: baseUrl: must be a valid http(s) URL' });
    }
    this.options = options;
    this.http = new HttpTransport(options);
    this.teamId = createHash('sha256').update(`${base.origin}${base.pathname}\0${options.apiKey}`).digest('hex').slice(0, 24);
    this.allowance = clientAllowance(options.allowPrivateAddresses);
  }

  /** Origin every request goes to; the only origin a `next` URL may have. */
  get origin(): string {
    return this.http.origin;
  }

  /**
   * A client of the same service and options that speaks with another API key (another team, its
   * own teamId and Retry-After holds). It shares this client's connection pool, which stays this
   * client's to close: the sibling's close() releases nothing.
   */
  withApiKey(apiKey: string): WebDataClient {
    return new WebDataClient({ ...this.options, apiKey, dispatcher: this.http.dispatcher });
  }

  /** Releases the client's own connection pool (a caller-provided dispatcher is left open). */
  close(): Promise<void> {
    return this.http.close();
  }

  // ---- scrape and interact -------------------------------------------------------

  async scrape(body: ScrapeRequest, options?: RequestOptions): Promise<ScrapeResponse> {
    const parsed = check(scrapeRequestSchema, body, 'scrape body');
    return asTyped(await this.send({ method: 'POST', target: '/v2/scrape', body: parsed, what: 'scrape' }, options), 'scrape');
  }

  async getScrape(id: string, options?: RequestOptions): Promise<ScrapeResponse> {
    const jobId = checkId(id, 'scrape id');
    return asTyped(await this.send({ method: 'GET', target: `/v2/scrape/${jobId}`, what: 'scrape retrieval', jobId }, options), 'scrape retrieval');
  }

  /**
   * POST /v2/parse: uploads one file (a path, a Buffer or a readable stream; at most 50 MB,
   * checked before sending) and answers like a scrape. The file is read into memory first.
   */
  async parse(file: ParseFileInput, request: ParseRequest = {}, options?: RequestOptions): Promise<ParseResponse> {
    const parseOptions = request.options === undefined ? undefined : check(parseOptionsSchema, request.options, 'parse options');
    const upload = await readUpload(file, request);
    const form = uploadForm(upload, parseOptions);
    return asTyped(await this.send({ method: 'POST', target: '/v2/parse', form, what: 'parse' }, options), 'parse');
  }

  async interact(jobId: string, body: InteractRequest, options?: RequestOptions): Promise<InteractResult> {
    const id = checkId(jobId, 'interact jobId');
    const parsed = check(interactRequestSchema, body, 'interact body');
    const what = 'interact';
    return asTyped(await this.send({ method: 'POST', target: `/v2/scrape/${id}/interact`, body: parsed, what, jobId: id }, options), what);
  }

  async stopInteraction(jobId: string, options?: RequestOptions): Promise<InteractStopResult> {
    const id = checkId(jobId, 'interact stop jobId');
    const what = 'interact stop';
    return asTyped(await this.send({ method: 'DELETE', target: `/v2/scrape/${id}/interact`, what, jobId: id }, options), what);
  }

  // ---- crawl ---------------------------------------------------------------------

  async startCrawl(body: CrawlRequest, options?: StartJobOptions): Promise<CrawlStartResponse> {
    const parsed = check(crawlRequestSchema, body, 'crawl body');
    const headers = idempotencyHeaders(options?.idempotencyKey, 'crawl');
    return asJobStart(await this.send({ method: 'POST', target: '/v2/crawl', body: parsed, headers, what: 'crawl start' }, options), 'crawl start');
  }

  async getCrawlStatus(id: string, page?: JobStatusPage, options?: RequestOptions): Promise<JobStatusResponse> {
    return this.jobStatus('crawl', '/v2/crawl', id, page, options);
  }

  async cancelCrawl(id: string, options?: RequestOptions): Promise<CancelJobResponse> {
    const jobId = checkId(id, 'crawl id');
    return asCancel(await this.send({ method: 'DELETE', target: `/v2/crawl/${jobId}`, what: 'crawl cancel', jobId }, options), 'crawl cancel');
  }

  async getCrawlErrors(id: string, options?: RequestOptions): Promise<JobErrorsResponse> {
    const jobId = checkId(id, 'crawl id');
    return asJobErrors(await this.send({ method: 'GET', target: `/v2/crawl/${jobId}/errors`, what: 'crawl errors', jobId }, options), 'crawl errors');
  }

  async listActiveCrawls(options?: RequestOptions): Promise<ActiveCrawlsResponse> {
    const r = asTyped<ActiveCrawlsResponse>(await this.send({ method: 'GET', target: '/v2/crawl/active', what: 'active crawls' }, options), 'active crawls');
    return { ...r, crawls: Array.isArray(r.crawls) ? r.crawls : [] };
  }

  async previewCrawlParams(body: CrawlParamsPreviewRequest, options?: RequestOptions): Promise<CrawlParamsPreviewResponse> {
    const parsed = check(crawlParamsPreviewRequestSchema, body, 'crawl params-preview body');
    const what = 'crawl params-preview';
    return asTyped(await this.send({ method: 'POST', target: '/v2/crawl/params-preview', body: parsed, what }, options), what);
  }

  // ---- batch scrape ----------------------------------------------------------------

  async startBatchScrape(body: BatchScrapeRequest, options?: StartJobOptions): Promise<BatchScrapeStartResponse> {
    const parsed = check(batchScrapeRequestSchema, body, 'batch scrape body');
    const headers = idempotencyHeaders(options?.idempotencyKey, 'batch scrape');
    const what = 'batch scrape start';
    return asJobStart(await this.send({ method: 'POST', target: '/v2/batch/scrape', body: parsed, headers, what }, options), what);
  }

  /**
   * Adds `body.urls` to the batch job `id` (`appendToId`, hosted service 2026). A server without
   * it answers `not_available`: a route-less 404, a 400 naming appendToId (a strict schema older
   * than the field), or a start of another job (a server that drops unknown keys; its id is in
   * the error's jobId, so the caller can follow that job instead of starting one more).
   */
  async appendToBatchScrape(id: string, body: BatchScrapeRequest, options?: StartJobOptions): Promise<BatchScrapeStartResponse> {
    const jobId = checkId(id, 'batch scrape id');
    const parsed = check(batchScrapeRequestSchema, { ...body, appendToId: jobId }, 'batch scrape append body');
    const headers = idempotencyHeaders(options?.idempotencyKey, 'batch scrape append');
    const what = 'batch scrape append';
    let started: BatchScrapeStartResponse;
    try {
      started = asJobStart(await this.send({ method: 'POST', target: '/v2/batch/scrape', body: parsed, headers, what }, options), what);
    } catch (err) {
      throw appendNotAvailable(err, jobId) ?? err;
    }
    if (started.id !== jobId) {
      throw new WebDataApiError({
        kind: 'not_available',
        code: 'NOT_AVAILABLE',
        retryable: false,
        jobId: started.id,
        message: `${what}: not available on this service (appendToId ignored: it started batch ${started.id})`,
      });
    }
    return started;
  }

  async getBatchScrapeStatus(id: string, page?: JobStatusPage, options?: RequestOptions): Promise<JobStatusResponse> {
    return this.jobStatus('batch scrape', '/v2/batch/scrape', id, page, options);
  }

  async cancelBatchScrape(id: string, options?: RequestOptions): Promise<CancelJobResponse> {
    const jobId = checkId(id, 'batch scrape id');
    const what = 'batch scrape cancel';
    return asCancel(await this.send({ method: 'DELETE', target: `/v2/batch/scrape/${jobId}`, what, jobId }, options), what);
  }

  async getBatchScrapeErrors(id: string, options?: RequestOptions): Promise<JobErrorsResponse> {
    const jobId = checkId(id, 'batch scrape id');
    const what = 'batch scrape errors';
    return asJobErrors(await this.send({ method: 'GET', target: `/v2/batch/scrape/${jobId}/errors`, what, jobId }, options), what);
  }

  /**
   * Yields `first`, then each page reached through `next`. Follows `next` only on the
   * client's own origin (the bearer token never leaves it; a foreign `next` throws), and
   * stops when a `next` repeats or a page brings nothing new (running jobs, see
   * pagination.ts).
   */
  pages<T extends JobStatusResponse>(first: T, options?: RequestOptions): AsyncGenerator<T, void, undefined> {
    return followPages(first, async (next) => {
      const url = this.sameOrigin(next, 'status page');
      const result = await this.send({ method: 'GET', target: url, what: 'status page' }, options);
      return asJobStatus(result, 'status page') as T;
    });
  }

  // ---- map and search ----------------------------------------------------------------

  async map(body: MapRequest, options?: RequestOptions): Promise<MapResponse> {
    const parsed = check(mapRequestSchema, body, 'map body');
    const r = asTyped<MapResponse>(await this.send({ method: 'POST', target: '/v2/map', body: parsed, what: 'map' }, options), 'map');
    return { ...r, links: Array.isArray(r.links) ? r.links : [] };
  }

  async search(body: SearchRequest, options?: RequestOptions): Promise<SearchResponse> {
    const parsed = check(searchRequestSchema, body, 'search body');
    const r = asTyped<SearchResponse>(await this.send({ method: 'POST', target: '/v2/search', body: parsed, what: 'search' }, options), 'search');
    return { ...r, data: r.data !== null && typeof r.data === 'object' ? r.data : {} };
  }

  // ---- browser sessions ----------------------------------------------------------------

  async createBrowser(body: BrowserCreateRequest = {}, options?: RequestOptions): Promise<BrowserCreateResponse> {
    const parsed = check(browserCreateRequestSchema, body, 'browser body');
    return asTyped(await this.send({ method: 'POST', target: '/v2/browser', body: parsed, what: 'browser create' }, options), 'browser create');
  }

  async listBrowsers(query: BrowserListQuery = {}, options?: RequestOptions): Promise<BrowserListResponse> {
    const parsed = check(browserListQuerySchema, query, 'browser list query');
    const r = asTyped<BrowserListResponse>(
      await this.send({ method: 'GET', target: '/v2/browser', query: parsed, what: 'browser list' }, options),
      'browser list',
    );
    return { ...r, sessions: Array.isArray(r.sessions) ? r.sessions : [] };
  }

  /** DELETE /v2/browser/{id} (the path form of 4.11). Session ids are "UUID-like", so only non-empty is required. */
  async deleteBrowser(id: string, options?: RequestOptions): Promise<BrowserDeleteResponse> {
    const sessionId = check(nonEmpty, id, 'browser id');
    const what = 'browser delete';
    return asTyped(await this.send({ method: 'DELETE', target: `/v2/browser/${encodeURIComponent(sessionId)}`, what }, options), what);
  }

  // ---- support and team ----------------------------------------------------------

  /** The service may take up to its 60 s budget; pass a larger `timeoutMs` if the default is tight. */
  async askSupport(body: SupportAskRequest, options?: RequestOptions): Promise<SupportAnswer> {
    const parsed = check(supportAskRequestSchema, body, 'support ask body');
    return asTyped(await this.send({ method: 'POST', target: '/v2/support/ask', body: parsed, what: 'support ask' }, options), 'support ask');
  }

  // ---- agent and extract ----------------------------------------------------------------

  /** POST /v2/agent; `maxCredits` caps what the job may spend. Read the result with getAgent. */
  async startAgent(body: AgentRequest, options?: RequestOptions): Promise<AgentStartResponse> {
    const parsed = check(agentRequestSchema, body, 'agent body');
    return asIdStart(await this.send({ method: 'POST', target: '/v2/agent', body: parsed, what: 'agent start' }, options), 'agent start');
  }

  /** GET /v2/agent/{id}; a failed job is returned (`status: "failed"`, `error`), not thrown. `creditsUsed` -1 when absent. */
  async getAgent(id: string, options?: RequestOptions): Promise<AgentStatusResponse> {
    const jobId = checkId(id, 'agent id');
    const r = asAgentStatus(await this.send({ method: 'GET', target: `/v2/agent/${jobId}`, what: 'agent status', jobId }, options), 'agent status');
    return { ...r, creditsUsed: typeof r.creditsUsed === 'number' ? r.creditsUsed : -1 };
  }

  async cancelAgent(id: string, options?: RequestOptions): Promise<AgentCancelResponse> {
    const jobId = checkId(id, 'agent id');
    const r = asTyped<AgentCancelResponse>(await this.send({ method: 'DELETE', target: `/v2/agent/${jobId}`, what: 'agent cancel', jobId }, options), 'agent cancel');
    return { ...r, success: r.success !== false };
  }

  /** POST /v2/extract (deprecated on the hosted service in favour of agent, still served). */
  async startExtract(body: ExtractRequest, options?: RequestOptions): Promise<ExtractStartResponse> {
    const parsed = check(extractRequestSchema, body, 'extract body');
    return asIdStart(await this.send({ method: 'POST', target: '/v2/extract', body: parsed, what: 'extract start' }, options), 'extract start');
  }

  /** GET /v2/extract/{id}; a failed job is returned (`status: "failed"`, `error`), not thrown. */
  async getExtract(id: string, options?: RequestOptions): Promise<ExtractResponse> {
    const jobId = checkId(id, 'extract id');
    return asAgentStatus(await this.send({ method: 'GET', target: `/v2/extract/${jobId}`, what: 'extract status', jobId }, options), 'extract status');
  }

  async listActivity(query: ActivityQuery = {}, options?: RequestOptions): Promise<ActivityResponse> {
    const parsed = check(activityQuerySchema, query, 'activity query');
    const r = asTyped<ActivityResponse>(
      await this.send({ method: 'GET', target: '/v2/team/activity', query: parsed, what: 'activity listing' }, options),
      'activity listing',
    );
    return { ...r, data: Array.isArray(r.data) ? r.data : [], cursor: r.cursor ?? null, has_more: r.has_more === true };
  }

  async getCreditUsage(options?: RequestOptions): Promise<CreditUsageResponse> {
    return asTyped(await this.send({ method: 'GET', target: '/v2/team/credit-usage', what: 'credit usage' }, options), 'credit usage');
  }

  /** GET /v2/team/queue-status; counts default to 0 and `mostRecentSuccess` to null when absent. */
  async getQueueStatus(options?: RequestOptions): Promise<QueueStatusResponse> {
    const r = asTyped<QueueStatusResponse>(await this.send({ method: 'GET', target: '/v2/team/queue-status', what: 'queue status' }, options), 'queue status');
    const count = (v: unknown) => (typeof v === 'number' ? v : 0);
    return {
      ...r,
      jobsInQueue: count(r.jobsInQueue),
      activeJobsInQueue: count(r.activeJobsInQueue),
      waitingJobsInQueue: count(r.waitingJobsInQueue),
      maxConcurrency: count(r.maxConcurrency),
      mostRecentSuccess: typeof r.mostRecentSuccess === 'string' ? r.mostRecentSuccess : null,
    };
  }

  async getTokenUsage(options?: RequestOptions): Promise<TokenUsageResponse> {
    return asTyped(await this.send({ method: 'GET', target: '/v2/team/token-usage', what: 'token usage' }, options), 'token usage');
  }

  async getHistoricalTokenUsage(query: HistoricalTokenUsageQuery = {}, options?: RequestOptions): Promise<HistoricalTokenUsageResponse> {
    const parsed = check(historicalTokenUsageQuerySchema, query, 'historical token usage query');
    const what = 'historical token usage';
    const r = asTyped<HistoricalTokenUsageResponse>(
      await this.send({ method: 'GET', target: '/v2/team/token-usage/historical', query: parsed, what }, options),
      what,
    );
    return { ...r, periods: Array.isArray(r.periods) ? r.periods : [] };
  }

  async getHistoricalCreditUsage(query: HistoricalCreditUsageQuery = {}, options?: RequestOptions): Promise<HistoricalCreditUsageResponse> {
    const parsed = check(historicalCreditUsageQuerySchema, query, 'historical credit usage query');
    const what = 'historical credit usage';
    const r = asTyped<HistoricalCreditUsageResponse>(
      await this.send({ method: 'GET', target: '/v2/team/credit-usage/historical', query: parsed, what }, options),
      what,
    );
    return { ...r, periods: Array.isArray(r.periods) ? r.periods : [] };
  }

  // ---- monitor (the hosted service's recurring checks) ------------------------------------

  async createMonitor(body: CreateMonitorRequest, options?: RequestOptions): Promise<MonitorResponse> {
    const parsed = check(createMonitorRequestSchema, body, 'monitor body');
    return asTyped(await this.send({ method: 'POST', target: '/v2/monitor', body: parsed, what: 'monitor create' }, options), 'monitor create');
  }

  /** GET /v2/monitor: one page (`limit` ≤ 100, default 25 on the service; `offset`). */
  async listMonitors(query: ListMonitorsQuery = {}, options?: RequestOptions): Promise<MonitorListResponse> {
    const parsed = check(listMonitorsQuerySchema, query, 'monitor list query');
    const r = asTyped<MonitorListResponse>(await this.send({ method: 'GET', target: '/v2/monitor', query: parsed, what: 'monitor list' }, options), 'monitor list');
    return { ...r, data: Array.isArray(r.data) ? r.data : [] };
  }

  async getMonitor(id: string, options?: RequestOptions): Promise<MonitorResponse> {
    const monitorId = checkId(id, 'monitor id');
    return asTyped(await this.send({ method: 'GET', target: `/v2/monitor/${monitorId}`, what: 'monitor get' }, options), 'monitor get');
  }

  async updateMonitor(id: string, body: UpdateMonitorRequest, options?: RequestOptions): Promise<MonitorResponse> {
    const monitorId = checkId(id, 'monitor id');
    const parsed = check(updateMonitorRequestSchema, body, 'monitor update body');
    return asTyped(await this.send({ method: 'PATCH', target: `/v2/monitor/${monitorId}`, body: parsed, what: 'monitor update' }, options), 'monitor update');
  }

  async deleteMonitor(id: string, options?: RequestOptions): Promise<MonitorDeleteResponse> {
    const monitorId = checkId(id, 'monitor id');
    const r = asTyped<MonitorDeleteResponse>(await this.send({ method: 'DELETE', target: `/v2/monitor/${monitorId}`, what: 'monitor delete' }, options), 'monitor delete');
    return { ...r, success: r.success !== false };
  }

  /** POST /v2/monitor/{id}/run: a manual check, queued; 409 while one runs or the monitor is paused. */
  async runMonitor(id: string, options?: RequestOptions): Promise<MonitorRunResponse> {
    const monitorId = checkId(id, 'monitor id');
    return asTyped(await this.send({ method: 'POST', target: `/v2/monitor/${monitorId}/run`, what: 'monitor run' }, options), 'monitor run');
  }

  /** GET /v2/monitor/{id}/checks: one page of checks, newest first. */
  async listMonitorChecks(id: string, query: ListMonitorChecksQuery = {}, options?: RequestOptions): Promise<MonitorCheckListResponse> {
    const monitorId = checkId(id, 'monitor id');
    const parsed = check(listMonitorChecksQuerySchema, query, 'monitor checks query');
    const what = 'monitor checks';
    const r = asTyped<MonitorCheckListResponse>(await this.send({ method: 'GET', target: `/v2/monitor/${monitorId}/checks`, query: parsed, what }, options), what);
    return { ...r, data: Array.isArray(r.data) ? r.data : [] };
  }

  /** Every check of a monitor (filtered by `status`), page by page through `offset`. */
  async *allMonitorChecks(id: string, query: Omit<ListMonitorChecksQuery, 'offset'> = {}, options?: RequestOptions): AsyncGenerator<MonitorCheck, void, undefined> {
    const limit = Number(query.limit ?? 100);
    const seen = new Set<string>();
    for (let offset = 0; ; offset += limit) {
      const page = await this.listMonitorChecks(id, { ...query, limit, offset }, options);
      // A server that ignores offset repeats its first page: stop at the first page with nothing new.
      const fresh = page.data.filter((c) => !seen.has(c.id));
      for (const c of fresh) {
        seen.add(c.id);
        yield c;
      }
      if (fresh.length === 0 || page.data.length < limit) return;
    }
  }

  /** GET /v2/monitor/{id}/checks/{checkId}: the check and one page of its pages; or the `next` URL of a previous answer. */
  async getMonitorCheck(id: string, checkIdOrNext: string, query: MonitorCheckQuery = {}, options?: RequestOptions): Promise<MonitorCheckDetailResponse> {
    const monitorId = checkId(id, 'monitor id');
    const what = 'monitor check';
    let call: HttpCall;
    if (/^https?:/i.test(checkIdOrNext)) {
      call = { method: 'GET', target: this.sameOrigin(checkIdOrNext, what), what };
    } else {
      const id2 = checkId(checkIdOrNext, 'monitor check id');
      const parsed = check(monitorCheckQuerySchema, query, 'monitor check query');
      call = { method: 'GET', target: `/v2/monitor/${monitorId}/checks/${id2}`, query: parsed, what };
    }
    const r = asTyped<MonitorCheckDetailResponse>(await this.send(call, options), what);
    const data = r.data !== null && typeof r.data === 'object' ? r.data : ({} as MonitorCheckDetailResponse['data']);
    return { ...r, data: { ...data, pages: Array.isArray(data.pages) ? data.pages : [] } };
  }

  /** Yields `first`, then each page of the check reached through `next` (own origin only; stops on a repeat or an empty page). */
  async *monitorCheckPages(monitorId: string, first: MonitorCheckDetailResponse, options?: RequestOptions): AsyncGenerator<MonitorCheckDetailResponse, void, undefined> {
    const followed = new Set<string>();
    const seen = new Set(first.data.pages.map((p) => p.id));
    yield first;
    let next = first.next ?? first.data.next;
    while (typeof next === 'string' && next !== '' && !followed.has(next)) {
      followed.add(next);
      const page = await this.getMonitorCheck(monitorId, next, {}, options);
      const fresh = page.data.pages.filter((p) => !seen.has(p.id));
      if (fresh.length === 0) return;
      for (const p of fresh) seen.add(p.id);
      yield page;
      next = page.next ?? page.data.next;
    }
  }

  // ---- internals ------------------------------------------------------------------------

  private async jobStatus(
    kind: 'crawl' | 'batch scrape',
    prefix: string,
    id: string,
    page: JobStatusPage | undefined,
    options: RequestOptions | undefined,
  ): Promise<JobStatusResponse> {
    const jobId = checkId(id, `${kind} id`);
    const what = `${kind} status`;
    let call: HttpCall;
    if (typeof page === 'string') {
      call = { method: 'GET', target: this.sameOrigin(page, what), what, jobId };
    } else {
      const query = check(jobStatusQuerySchema, page ?? {}, `${kind} status query`);
      call = { method: 'GET', target: `${prefix}/${jobId}`, query, what, jobId };
    }
    return asJobStatus(await this.send(call, options), what);
  }

  /** Parses a `next` URL and refuses any origin but the client's own: it would get the token. */
  private sameOrigin(next: string, what: string): URL {
    let url: URL;
    try {
      url = new URL(next);
    } catch {
      throw new WebDataApiError({ kind: 'validation', code: 'INVALID_NEXT_URL', message: `${what}: next: must be an absolute URL` });
    }
    if (url.origin !== this.http.origin) {
      throw new WebDataApiError({
        kind: 'forbidden',
        code: 'FOREIGN_NEXT_URL',
        retryable: false,
        message: `${what}: refusing to follow next URL on ${url.origin}: the API key is only sent to ${this.http.origin}`,
      });
    }
    return url;
  }

  private send(call: HttpCall, options: RequestOptions | undefined) {
    if (!this.allowance.all && call.body !== undefined) refusePrivateUrls(call.body, call.what, this.allowance);
    return this.http.call({ ...call, signal: options?.signal, timeoutMs: options?.timeoutMs });
  }
}

/** The option, else WEBDATA_ALLOW_PRIVATE_ADDRESSES; a malformed one is a validation error of one line. */
function clientAllowance(option: PrivateAddressOption | undefined): AddressAllowance {
  try {
    return addressAllowanceOf(option, 'client options: allowPrivateAddresses') ?? parseAddressAllowance(process.env[ALLOW_PRIVATE_ADDRESSES_ENV]);
  } catch (err) {
    throw new WebDataApiError({ kind: 'validation', code: 'LOCAL_VALIDATION', message: (err as Error).message });
  }
}

/** Every URL of a body (url, urls, webhook...) must name a public host: checked before sending. */
function refusePrivateUrls(body: unknown, what: string, allowance: AddressAllowance): void {
  const issues = privateUrlIssues(body, allowance);
  if (issues.length === 0) return;
  throw new WebDataApiError({
    kind: 'validation',
    code: 'PRIVATE_ADDRESS',
    message: `${what}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    details: issues,
  });
}

function check<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(what, r.error);
  return r.data;
}

/** Job ids are UUIDs; checked locally so a typo never reaches the service. */
function checkId(id: unknown, what: string): string {
  return check(uuid, id, what);
}

function idempotencyHeaders(key: string | undefined, kind: string): Record<string, string> | undefined {
  if (key === undefined) return undefined;
  return { 'x-idempotency-key': check(uuid, key, `${kind} idempotencyKey`) };
}
