// Webhook specs as requests carry them, events, and the dispatcher that delivers them.
import type { TeamConfig } from './teams.js';

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
