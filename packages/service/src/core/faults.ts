// Fault injection settings per team (tests and chaos runs).

export interface FaultConfig {
  /** Probability 0..1 that a request to a matching route answers `errorStatus` (a random draw per request). */
  errorRate?: number;
  /**
   * A fixed schedule instead of a draw: the team's n-th eligible request since these faults were
   * set (n = 1, 2, ...; eligible = on a matching route and not answered by a storm) answers
   * `errorStatus` when (n + errorOffset) % errorEvery === 0. So N eligible requests meet exactly
   * floor((N + errorOffset) / errorEvery) errors, however the requests of a run interleave.
   */
  errorEvery?: number;
  errorOffset?: number;
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
  /**
   * Crawl and batch scrape jobs started while this is set scrape at most this many pages, then
   * stop moving: status `scraping`, `completed` frozen, no more pages scraped, for good (also
   * when the fault is cleared later), until the job is cancelled (DELETE) or the service closes.
   * Like a job whose worker died with a page in flight on a server that never times it out.
   */
  stallJobsAfterPages?: number;
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
