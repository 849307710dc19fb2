import type { WebDataClient } from 'webdata-client';
import type { DocumentStore } from 'webdata-storage';
import type { PrivateAddressOption } from 'webdata-contract';
import type { IdempotencyMemory } from './idempotency.js';

/** Everything activities use, injected by the worker (never read from globals). */
export interface ActivityDeps {
  client: WebDataClient;
  store: DocumentStore;
  /**
   * Services (by base URL) that refuse the idempotency key, learned during the worker's life;
   * the job starts make one when absent (one per createActivities).
   */
  idempotency?: IdempotencyMemory;
  /** Items per status page when collecting; default 100. */
  collectPageSize?: number;
  /** Following a running job: pause after a quick answer that brought nothing new; default 500 ms. */
  followIdleMs?: number;
  /** Following a slow job: the pause grows up to this while reads bring less than a quarter page; default 1 s (at least followIdleMs). */
  followMaxIdleMs?: number;
  /** Following a running job: longest single activity call before it hands its cursor back; default 5 min. */
  followSliceMs?: number;
  /** Heartbeat period of long calls; default 5 s. */
  heartbeatEveryMs?: number;
  /**
   * robots.txt agent (product token) whose rules the pipeline's own robots check applies:
   * the service's crawler. Default `WebDataBot` (DEFAULT_ROBOTS_USER_AGENT, the local service's
   * agent); rules for `*` apply when the site names no group for it. See activities/robots.ts.
   */
  robotsUserAgent?: string;
  /** Per-attempt deadline of a robots.txt fetch; default 5 s (a timeout disallows the origin). */
  robotsTimeoutMs?: number;
  /** fetch used for robots.txt (tests); default a fetch that reaches public addresses only. */
  robotsFetch?: typeof fetch;
  /**
   * Loopback, private and other non-public hosts the worker's own fetches (robots.txt, the change
   * summary webhook) may reach: `host`/`host:port` entries, `true` all, `false` none; default
   * WEBDATA_ALLOW_PRIVATE_ADDRESSES (off).
   */
  allowPrivateAddresses?: PrivateAddressOption;
  /** Secret that signs the change summary webhook (input.changes.webhookUrl); unset: not sent. */
  changesWebhookSecret?: string;
  /** fetch used for the change summary webhook (tests); default a fetch that reaches public addresses only. */
  webhookFetch?: typeof fetch;
}
