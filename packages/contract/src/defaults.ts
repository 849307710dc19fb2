// Defaults and limits of the v2 API (reference section 8 and the request tables of section 4,
// contract notes). Pure data: the client, the local service and the Temporal workflows (whose
// sandbox allows no Node built-ins) all read them from here.

// Scrape (contract notes "Scrape").
/** At most this many `actions` per scrape. */
export const MAX_ACTIONS = 50;
/** Total waiting allowed in one scrape: wait actions' milliseconds plus waitFor. */
export const MAX_TOTAL_WAIT_MS = 60_000;

// Crawl (4.5, 4.6, section 8).
/** Pages crawled when the request sets no `limit`. */
export const DEFAULT_CRAWL_LIMIT = 10_000;
/** Crawl `prompt` and params-preview `prompt`, chars. */
export const MAX_CRAWL_PROMPT = 10_000;

// Crawl and batch scrape status (contract notes "Jobs").
/** Items per status page when the query sets no `limit`. */
export const DEFAULT_STATUS_PAGE_ITEMS = 100;
/**
 * Largest page size a status GET accepts. The reference names none; the default page is
 * 100 items and pages are also cut at 10 MiB, so 1000 is generous without letting one
 * request serialize a whole large job.
 */
export const MAX_STATUS_PAGE_LIMIT = 1000;
/** A status page is cut once its serialized JSON passes this many bytes (10 MiB). */
export const STATUS_PAGE_BYTE_LIMIT = 10 * 1024 * 1024;

// Map (4.13, section 8).
export const DEFAULT_MAP_LIMIT = 5000;
export const MAX_MAP_LIMIT = 100_000;

// Search (4.12, section 8).
export const MAX_SEARCH_QUERY = 500;
/** Results per source type. */
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_TIMEOUT_MS = 60_000;

// Interact and browser execute (4.1, section 8).
/** The fields of an interact request (schemas/interact.ts: its shape has exactly these). */
export const INTERACT_REQUEST_FIELDS = ['code', 'prompt', 'language', 'timeout'] as const;
export const MAX_INTERACT_CODE = 100_000;
export const MAX_INTERACT_PROMPT = 10_000;
export const MIN_INTERACT_TIMEOUT_SEC = 1;
export const MAX_INTERACT_TIMEOUT_SEC = 300;
export const DEFAULT_INTERACT_TIMEOUT_SEC = 30;

// Browser sessions (4.9, section 8; the reference states ttl as 600 in one place, 300 in another).
export const DEFAULT_BROWSER_TTL_SEC = 600;
export const DEFAULT_BROWSER_ACTIVITY_TTL_SEC = 300;
/** The session the first interact call opens at a scrape's page (contract notes "Interact"). */
export const INTERACT_SESSION_TTL_SEC = 600;
export const INTERACT_SESSION_ACTIVITY_TTL_SEC = 300;

// Team endpoints (contract notes "Team endpoints").
/** Activity listing page size when the query sets no `limit` (1-100). */
export const DEFAULT_ACTIVITY_LIMIT = 50;
export const MAX_ACTIVITY_LIMIT = 100;

// Agent and extract (contract notes "Shapes of routes the reference names without showing").
export const MAX_AGENT_PROMPT = 10_000;
/** URLs an agent request may name (the hosted service names no limit; extract's is 10). */
export const MAX_AGENT_URLS = 100;
/** Agent `model` values of the hosted service (contract notes, 2026); spark-1-pro is its default. */
export const AGENT_MODELS = ['spark-1-pro', 'spark-1-mini', 'spark-2'] as const;
export const MAX_EXTRACT_URLS = 10;

// Parse (contract notes): one uploaded file, up to 50 MB.
export const MAX_PARSE_FILE_BYTES = 50 * 1024 * 1024;
/** File kinds POST /v2/parse converts, as named in its 415 answer. */
export const PARSE_FILE_KINDS = ['PDF', 'DOCX', 'HTML', 'text'] as const;

// Monitor (contract notes "What the hosted service added by 2026").
export const MAX_MONITOR_NAME = 256;
export const MAX_MONITOR_SCHEDULE_TEXT = 128;
export const MAX_MONITOR_TARGETS = 50;
export const MAX_MONITOR_RECIPIENTS = 25;
export const MAX_MONITOR_GOAL = 2000;
export const MAX_MONITOR_RETENTION_DAYS = 365;
export const DEFAULT_MONITOR_RETENTION_DAYS = 30;
export const DEFAULT_MONITOR_LIST_LIMIT = 25;
export const MAX_MONITOR_LIST_LIMIT = 100;
export const DEFAULT_MONITOR_TIMEZONE = 'UTC';

// Support ask (4.3, section 8).
export const MAX_SUPPORT_QUESTION = 8000;
export const MAX_SUPPORT_RATIONALE = 2000;

// Untrusted input: limits of this package where the reference names none. A tenant's text
// reaches the service and the worker; these keep one request or pattern from being unbounded.
/** A URL pattern (include/exclude paths, `match`), chars. */
export const MAX_PATTERN_LENGTH = 1000;
/** Patterns in one list (includePaths, excludePaths, select include/exclude). */
export const MAX_PATTERNS = 100;
/** Custom request headers (scrape `headers`, webhook `headers`): entries, name and value chars. */
export const MAX_HEADERS = 50;
export const MAX_HEADER_NAME = 256;
export const MAX_HEADER_VALUE = 8192;
/** A json/changeTracking format `prompt` (the same as the reference's other prompts), chars. */
export const MAX_FORMAT_PROMPT = 10_000;
/** An `executeJavascript` action's script (as interact `code`) and a `write` action's text, chars. */
export const MAX_ACTION_SCRIPT = MAX_INTERACT_CODE;
export const MAX_ACTION_TEXT = 10_000;
/** A run's credit budget: a budget of 0 could do nothing. */
export const MIN_BUDGET_CREDITS = 1;
