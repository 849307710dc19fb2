// The package's own metrics, recorded through the Temporal runtime's MetricMeter so they leave
// by the runtime's exporter (Prometheus or OTLP) next to the SDK's own: one endpoint for both.
// With no exporter installed the runtime's meter is a no-op and so is all of this.
//   webdata_http_requests{method,route,status}    requests to the service (status `none`: no response)
//   webdata_http_request_duration{method,route}   ms per request
//   webdata_rate_limited{route}                   429 answers
//   webdata_retry_after_wait{route,status}        ms the service asked to wait (Retry-After)
//   webdata_pages_stored{kind}                    documents newly written to the store
// and, from the workflow interceptor (workflow-metrics.ts), webdata_credits{stage},
// webdata_job_duration{kind}, webdata_pipeline_runs{status}, webdata_pipeline_duration{status}.
import { fileURLToPath } from 'node:url';
import type { MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { WebDataClientOptions } from 'webdata-client';
import type { DocumentStore } from 'webdata-storage';

/** The client's request observer (WebDataClientOptions.observer). */
export type RequestObserver = NonNullable<WebDataClientOptions['observer']>;

/** The workflow interceptor module recording credits, job and run durations (bundled with the workflows). */
export const WORKFLOW_METRICS_PATH = fileURLToPath(new URL(`./workflow-metrics${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

export interface WebDataMetrics {
  /** Give to `new WebDataClient({ observer })`: counts requests, 429s and Retry-After waits. */
  readonly observer: RequestObserver;
  /** Counts documents a store call newly wrote, by kind (crawl, batch, interact, scrape...). */
  pagesStored(kind: string, count: number): void;
}

/** Metrics on `meter`; default the installed runtime's meter (a no-op without an exporter). */
export function createWebDataMetrics(meter: MetricMeter = Runtime.instance().metricMeter): WebDataMetrics {
  const requests = meter.createCounter('webdata_http_requests', undefined, 'Requests to the Web Data service by method, route and status');
  const duration = meter.createHistogram('webdata_http_request_duration', 'float', 'ms', 'Duration of requests to the Web Data service');
  const rateLimited = meter.createCounter('webdata_rate_limited', undefined, 'Answers 429 (rate limited) from the Web Data service');
  const retryAfter = meter.createHistogram('webdata_retry_after_wait', 'int', 'ms', 'Waits the service asked for in Retry-After');
  const stored = meter.createCounter('webdata_pages_stored', undefined, 'Documents newly written to the store');
  return {
    observer: {
      onResponse(o) {
        const status = o.status === undefined ? 'none' : String(o.status);
        requests.add(1, { method: o.method, route: o.route, status });
        duration.record(o.durationMs, { method: o.method, route: o.route });
        if (o.status === 429) rateLimited.add(1, { route: `${o.method} ${o.route}` });
        if (o.retryAfterMs !== undefined) retryAfter.record(Math.max(0, Math.round(o.retryAfterMs)), { route: `${o.method} ${o.route}`, status });
      },
    },
    pagesStored(kind, count) {
      if (count > 0) stored.add(count, { kind });
    },
  };
}

/** The store, counting what `appendDocuments` newly writes (appends are idempotent: no double counts). */
export function withStoreMetrics(store: DocumentStore, metrics: WebDataMetrics): DocumentStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'appendDocuments') {
        return async (...args: Parameters<DocumentStore['appendDocuments']>) => {
          const written = await target.appendDocuments(...args);
          metrics.pagesStored(args[2][0]?.kind ?? 'unknown', written);
          return written;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** One observer calling several (metrics and traces). */
export function combineObservers(...observers: Array<RequestObserver | undefined>): RequestObserver | undefined {
  const list = observers.filter((o): o is RequestObserver => o !== undefined);
  if (list.length <= 1) return list[0];
  return {
    onRequest(start) {
      const ends = list.map((o) => o.onRequest?.(start));
      return (outcome) => {
        for (const end of ends) if (typeof end === 'function') end(outcome);
      };
    },
    onResponse(outcome) {
      for (const o of list) o.onResponse?.(outcome);
    },
  };
}
