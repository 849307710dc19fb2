// Response types of the v2 API (reference sections 2, 4, 6 and the contract notes).
// Every object may carry more fields than listed: the client parses leniently, so these
// types describe what callers can rely on, with an index signature where the service is
// known to add members.

/** Crawl and batch scrape job status (2.8, contract notes "Jobs"). */
export type JobStatus = 'scraping' | 'completed' | 'failed' | 'cancelled';

/** Page metadata (2.8, contract notes "Scrape"). Unknown keys carry string values. */
export interface DocumentMetadata {
  title?: string;
  description?: string;
  language?: string;
  sourceURL?: string;
  url?: string;
  keywords?: string;
  ogLocaleAlternate?: string[];
  statusCode?: number;
  error?: string;
  concurrencyLimited?: boolean;
  concurrencyQueueDurationMs?: number;
  /** Job id of a scrape; used by interact and GET /v2/scrape/{id}. */
  scrapeId?: string;
  contentType?: string;
  proxyUsed?: string;
  creditsUsed?: number;
  [key: string]: unknown;
}

/** A scraped page (2.8 page document, scrape retrieval data). */
export interface ScrapeDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  images?: string[];
  screenshot?: string;
  summary?: string;
  json?: unknown;
  changeTracking?: Record<string, unknown>;
  actions?: Record<string, unknown>;
  warning?: string;
  metadata?: DocumentMetadata;
  [key: string]: unknown;
}

export interface ScrapeResponse {
  success: boolean;
  data: ScrapeDocument;
  warning?: string;
  [key: string]: unknown;
}

/** GET /v2/scrape/{id} of a scrape that failed (local service): no document, the failure's message. */
export interface ScrapeFailureResponse {
  success: false;
  error: string;
  data: null;
  [key: string]: unknown;
}
/** GET /v2/scrape/{id}. */
export type ScrapeRetrievalResponse = ScrapeResponse | ScrapeFailureResponse;

/** GET /v2/crawl/{id} and GET /v2/batch/scrape/{id}. */
export interface JobStatusResponse {
  /** Absent on some deployments; false for a crawl that failed at kickoff (HTTP 200). */
  success?: boolean;
  status: JobStatus | (string & {});
  total: number;
  completed: number;
  /** -1 on self-hosted deployments without billing. */
  creditsUsed: number;
  expiresAt?: string;
  /** Absolute URL of the next chunk; may repeat the same skip while the job runs. */
  next?: string | null;
  data: ScrapeDocument[];
  createdAt?: string;
  completedAt?: string;
  error?: string;
  [key: string]: unknown;
}
export type CrawlStatusResponse = JobStatusResponse;
export type BatchScrapeStatusResponse = JobStatusResponse;

/** POST /v2/crawl (2.7). */
export interface CrawlStartResponse {
  success: boolean;
  id: string;
  url: string;
  [key: string]: unknown;
}

/** POST /v2/batch/scrape. */
export interface BatchScrapeStartResponse extends CrawlStartResponse {
  invalidURLs?: string[];
}

/** DELETE /v2/crawl/{id} and DELETE /v2/batch/scrape/{id}: no `success` on the hosted service. */
export interface CancelJobResponse {
  success?: boolean;
  status: 'cancelled' | (string & {});
  [key: string]: unknown;
}

/** GET /v2/crawl/{id}/errors and the batch twin. */
export interface JobErrorEntry {
  id: string;
  timestamp?: string;
  url: string;
  code?: string;
  error: string;
  [key: string]: unknown;
}
export interface JobErrorsResponse {
  errors: JobErrorEntry[];
  robotsBlocked: string[];
  [key: string]: unknown;
}

/** GET /v2/crawl/active (4.7). */
export interface ActiveCrawl {
  id: string;
  teamId: string;
  url: string;
  created_at?: string;
  options?: { scrapeOptions?: Record<string, unknown>; [key: string]: unknown };
  [key: string]: unknown;
}
export interface ActiveCrawlsResponse {
  success: boolean;
  crawls: ActiveCrawl[];
  [key: string]: unknown;
}

/** The crawl options POST /v2/crawl/params-preview generates (4.6 `data`, minus `url`). */
export interface CrawlParamsPreviewOptions {
  includePaths?: string[];
  excludePaths?: string[];
  /** Accepted from a model for v1 compatibility; the crawl itself uses maxDiscoveryDepth. */
  maxDepth?: number;
  maxDiscoveryDepth?: number;
  crawlEntireDomain?: boolean;
  allowExternalLinks?: boolean;
  allowSubdomains?: boolean;
  sitemap?: 'skip' | 'include' | 'only';
  ignoreQueryParameters?: boolean;
  ignoreRobotsTxt?: boolean;
  robotsUserAgent?: string;
  deduplicateSimilarURLs?: boolean;
  /** Seconds between pages. */
  delay?: number;
  limit?: number;
}

/** POST /v2/crawl/params-preview (4.6). */
export interface CrawlParamsPreviewResponse {
  success: boolean;
  data: CrawlParamsPreviewOptions & { url?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** POST /v2/map (2.10): title and description may be missing. */
export interface MapLink {
  url: string;
  title?: string;
  description?: string;
  [key: string]: unknown;
}
export interface MapResponse {
  success: boolean;
  links: MapLink[];
  [key: string]: unknown;
}

/** POST /v2/search (2.9). */
export interface SearchWebResult extends ScrapeDocument {
  url: string;
  title?: string;
  description?: string;
  audio?: string;
  category?: 'github' | 'research' | 'pdf';
}
export interface SearchImageResult {
  title?: string;
  imageUrl?: string;
  imageWidth?: number;
  imageHeight?: number;
  url: string;
  position?: number;
  [key: string]: unknown;
}
export interface SearchNewsResult extends ScrapeDocument {
  url: string;
  title?: string;
  snippet?: string;
  date?: string;
  imageUrl?: string;
  position?: number;
}
export interface SearchResponse {
  success: boolean;
  data: { web?: SearchWebResult[]; images?: SearchImageResult[]; news?: SearchNewsResult[] };
  warning?: string | null;
  id?: string;
  creditsUsed?: number;
  [key: string]: unknown;
}

/** Browser session (2.1). */
export interface BrowserSession {
  id: string;
  status: 'active' | 'destroyed';
  cdpUrl: string;
  liveViewUrl: string;
  interactiveLiveViewUrl?: string;
  streamWebView?: boolean;
  createdAt?: string;
  lastActivity?: string;
  expiresAt?: string;
  [key: string]: unknown;
}
/** POST /v2/browser (4.9). */
export interface BrowserCreateResponse {
  success: boolean;
  id: string;
  cdpUrl: string;
  liveViewUrl: string;
  interactiveLiveViewUrl?: string;
  expiresAt?: string;
  [key: string]: unknown;
}
/** GET /v2/browser (4.10). */
export interface BrowserListResponse {
  success: boolean;
  sessions: BrowserSession[];
  [key: string]: unknown;
}
/** DELETE /v2/browser/{id} (4.11). */
export interface BrowserDeleteResponse {
  success: boolean;
  sessionDurationMs?: number;
  creditsBilled?: number;
  error?: string;
  [key: string]: unknown;
}

/** POST /v2/scrape/{jobId}/interact (2.3). */
export interface InteractResult {
  success: boolean;
  liveViewUrl?: string;
  interactiveLiveViewUrl?: string;
  output?: string;
  stdout?: string | null;
  result?: string | null;
  stderr?: string | null;
  exitCode?: number | null;
  killed?: boolean;
  error?: string | null;
  [key: string]: unknown;
}

/** DELETE /v2/scrape/{jobId}/interact (2.4): the success case may carry only `success`. */
export interface InteractStopResult {
  success: boolean;
  sessionDurationMs?: number;
  creditsBilled?: number;
  error?: string;
  [key: string]: unknown;
}

/** POST /v2/support/ask (2.5). */
export interface SupportAnswer {
  requestId: string;
  answer: string;
  confidence: 'high' | 'medium' | 'low';
  fixParameters: Record<string, unknown> | null;
  validation: { tested: boolean; result: 'success' | 'failure' | 'skipped'; evidence: string } | null;
  feedback: { blockedBy: string; attempted: string[] } | null;
  durationMs: number;
  [key: string]: unknown;
}

/** Status of an agent or extract job (contract notes). */
export type AgentJobStatus = 'processing' | 'completed' | 'failed' | 'cancelled';

/** POST /v2/agent and POST /v2/extract: the job id to read with GET. */
export interface AgentStartResponse {
  success: boolean;
  id: string;
  [key: string]: unknown;
}
export type ExtractStartResponse = AgentStartResponse;

/** GET /v2/agent/{id} (contract notes). `data` follows the request's `schema` when one was given. */
export interface AgentStatusResponse {
  success: boolean;
  status: AgentJobStatus | (string & {});
  data?: unknown;
  error?: string;
  creditsUsed: number;
  expiresAt?: string;
  [key: string]: unknown;
}

/** DELETE /v2/agent/{id}. */
export interface AgentCancelResponse {
  success: boolean;
  status?: 'cancelled' | (string & {});
  [key: string]: unknown;
}

/** GET /v2/extract/{id} (contract notes): `creditsUsed` may be absent on the hosted service. */
export interface ExtractResponse {
  success: boolean;
  status: AgentJobStatus | (string & {});
  data?: unknown;
  error?: string;
  expiresAt?: string;
  creditsUsed?: number;
  /** With `showSources`: the URLs the answer was drawn from. */
  sources?: unknown;
  warning?: string;
  [key: string]: unknown;
}

/** POST /v2/parse: answered like a scrape. */
export type ParseResponse = ScrapeResponse;

/** GET /v2/team/queue-status (contract notes). */
export interface QueueStatusResponse {
  success: boolean;
  jobsInQueue: number;
  activeJobsInQueue: number;
  waitingJobsInQueue: number;
  maxConcurrency: number;
  /** ISO time of the team's most recent successful job; null when there is none. */
  mostRecentSuccess: string | null;
  [key: string]: unknown;
}

/** GET /v2/team/token-usage: the credit-usage route with tokens. */
export interface TokenUsageResponse {
  success: boolean;
  data: {
    remainingTokens: number;
    planTokens?: number;
    billingPeriodStart?: string | null;
    billingPeriodEnd?: string | null;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** GET /v2/team/token-usage/historical. */
export interface TokenUsagePeriod {
  startDate: string;
  endDate: string;
  apiKey?: string;
  totalTokens: number;
  [key: string]: unknown;
}
export interface HistoricalTokenUsageResponse {
  success: boolean;
  periods: TokenUsagePeriod[];
  [key: string]: unknown;
}

/** GET /v2/team/activity (contract notes "Team endpoints"). */
export interface ActivityEntry {
  id: string;
  endpoint: string;
  api_version?: string;
  created_at: string;
  target?: string | null;
  [key: string]: unknown;
}
export interface ActivityResponse {
  success: boolean;
  data: ActivityEntry[];
  cursor: string | null;
  has_more: boolean;
  [key: string]: unknown;
}

/** GET /v2/team/credit-usage. */
export interface CreditUsageResponse {
  success: boolean;
  data: {
    remainingCredits: number;
    planCredits?: number;
    billingPeriodStart?: string | null;
    billingPeriodEnd?: string | null;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** GET /v2/team/credit-usage/historical (2.11). */
export interface CreditUsagePeriod {
  startDate: string;
  endDate: string;
  apiKey?: string;
  totalCredits: number;
  [key: string]: unknown;
}
export interface HistoricalCreditUsageResponse {
  success: boolean;
  periods: CreditUsagePeriod[];
  [key: string]: unknown;
}

/** Error body of failed requests (contract notes "Error bodies"). */
export interface ErrorBody {
  success?: false;
  error?: string;
  code?: string;
  details?: unknown;
  id?: string;
  [key: string]: unknown;
}

/** Webhook deliveries (section 6, contract notes "Webhooks"). */
export type WebhookEventType =
  | 'crawl.started'
  | 'crawl.page'
  | 'crawl.completed'
  | 'crawl.failed'
  | 'batch_scrape.started'
  | 'batch_scrape.page'
  | 'batch_scrape.completed'
  | 'batch_scrape.failed'
  | 'extract.started'
  | 'extract.completed'
  | 'extract.failed'
  | 'agent.started'
  | 'agent.action'
  | 'agent.completed'
  | 'agent.failed'
  | 'agent.cancelled'
  | 'monitor.page'
  | 'monitor.check.completed';

interface WebhookPayloadBase {
  success: boolean;
  /** The job's id (crawl, batch scrape, extract or agent). */
  id: string;
  /** Unique per delivery; retries of one delivery share it. */
  webhookId: string;
  error?: string;
  /** The custom metadata of the webhook spec, echoed in every delivery. */
  metadata?: Record<string, string>;
  [key: string]: unknown;
}
export interface WebhookPagePayload extends WebhookPayloadBase {
  type: 'crawl.page' | 'batch_scrape.page';
  /** One document; for a failed page only `{ metadata: { sourceURL } }`. */
  data: ScrapeDocument[];
}
export interface WebhookJobPayload extends WebhookPayloadBase {
  type: Exclude<WebhookEventType, 'crawl.page' | 'batch_scrape.page'>;
  data: unknown[];
}
export type WebhookPayload = WebhookPagePayload | WebhookJobPayload;

// ---- Monitor (contract notes "What the hosted service added by 2026") ----------------------

/** Counts of one check, by page status. */
export interface MonitorSummary {
  totalPages: number;
  same: number;
  changed: number;
  new: number;
  removed: number;
  error: number;
}

export interface Monitor {
  id: string;
  name: string;
  status: 'active' | 'paused';
  schedule: { cron: string; timezone: string };
  nextRunAt: string | null;
  lastRunAt: string | null;
  currentCheckId: string | null;
  /** As given, each with its `id`. */
  targets: Array<Record<string, unknown> & { id: string; type: 'scrape' | 'crawl' }>;
  webhook: unknown;
  notification: unknown;
  retentionDays: number;
  estimatedCreditsPerMonth: number | null;
  lastCheckSummary: MonitorSummary | null;
  goal: string | null;
  judgeEnabled: boolean;
  createdAt: string;
  updatedAt: string;
  [key: string]: unknown;
}

export type MonitorCheckStatusValue = 'queued' | 'running' | 'completed' | 'failed' | 'partial' | 'skipped_overlap' | 'skipped_no_credits';

export interface MonitorCheck {
  id: string;
  monitorId: string;
  status: MonitorCheckStatusValue;
  trigger: 'scheduled' | 'manual';
  scheduledFor: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  estimatedCredits: number | null;
  actualCredits: number | null;
  summary: MonitorSummary;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  [key: string]: unknown;
}

/** What a model judged of a page's change; only with a goal and a model. */
export interface MonitorJudgment {
  meaningful: boolean;
  confidence: 'high' | 'medium' | 'low';
  reason: string;
  meaningfulChanges: Array<{ type: 'added' | 'removed' | 'changed'; before: string | null; after: string | null; reason: string }>;
}

export interface MonitorCheckPage {
  id: string;
  targetId: string;
  url: string;
  status: 'same' | 'new' | 'changed' | 'removed' | 'error';
  previousScrapeId: string | null;
  currentScrapeId: string | null;
  statusCode: number | null;
  error: string | null;
  /** `text`: a unified diff of the markdown against the previous check (changed pages). */
  diff: { text?: string; json?: unknown } | null;
  judgment?: MonitorJudgment | null;
  createdAt: string;
  [key: string]: unknown;
}

export interface MonitorResponse {
  success: boolean;
  data: Monitor;
}

export interface MonitorListResponse {
  success: boolean;
  data: Monitor[];
}

export interface MonitorDeleteResponse {
  success: boolean;
}

export interface MonitorRunResponse {
  success: boolean;
  /** The check's id. */
  id: string;
  data: MonitorCheck;
}

export interface MonitorCheckListResponse {
  success: boolean;
  data: MonitorCheck[];
}

export interface MonitorCheckDetailResponse {
  success: boolean;
  /** The next page of this check's pages (same route, `skip` moved on). */
  next?: string;
  data: MonitorCheck & { pages: MonitorCheckPage[]; next?: string };
}

/** `data[0]` of a `monitor.check.completed` delivery (its `id` is the check's). */
export interface MonitorCheckCompletedData {
  monitorId: string;
  checkId: string;
  status: MonitorCheckStatusValue;
  summary: MonitorSummary;
}
