import type { WebDataClient } from 'webdata-client';
import type { DocumentStore } from 'webdata-storage';

/** Everything activities use, injected by the worker (never read from globals). */
export interface ActivityDeps {
  client: WebDataClient;
  store: DocumentStore;
  /** Items per status page when collecting; default 100. */
  collectPageSize?: number;
  /** Heartbeat period of long calls; default 5 s. */
  heartbeatEveryMs?: number;
}
