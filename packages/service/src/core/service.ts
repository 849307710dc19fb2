// The service configuration and the context every route module receives (built in app.ts).
import type { ActivityLog } from './activity.js';
import type { CreditLedger } from './credits.js';
import type { FaultInjector } from './faults.js';
import type { JobInspector } from './jobs.js';
import type { PageIndex, ScrapeEngine, ScrapeRecords } from './scrape.js';
import type { TeamConfig } from './teams.js';
import type { WebhookDispatcher } from './webhooks.js';
import type { ServiceLogger } from '../http/logger.js';

/**
 * Servers the service can imitate instead of following the reference: `firecrawl-oss` is the
 * open-source Firecrawl server at commit 0fac8fb (see imitate/firecrawl-oss.ts).
 */
export const IMITATIONS = ['firecrawl-oss'] as const;
export type ServiceImitation = (typeof IMITATIONS)[number];

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
  /**
   * Behave like another server where it differs from the reference in ways clients must
   * tolerate (absent: follow the reference). See imitate/firecrawl-oss.ts.
   */
  imitate?: ServiceImitation;
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
  /** The service's log (warnings a request cannot answer with, e.g. a monitor's model failing). */
  log: ServiceLogger;
  /** Registers cleanup run by close(): stop timers, abort running jobs, close browsers. */
  onClose(fn: () => Promise<void> | void): void;
}
