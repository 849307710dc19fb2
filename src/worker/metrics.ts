// The package's own metrics, recorded through the Temporal runtime's MetricMeter so they leave
// by the runtime's exporter (Prometheus or OTLP) next to the SDK's own: one endpoint for both.
// With no exporter installed the runtime's meter is a no-op and so is all of this.
//   webdata_http_requests{method,route,status,tenant}  requests to the service (status `none`: no response)
//   webdata_http_request_duration_seconds{method,route}   seconds per request
//   webdata_rate_limited{route,tenant}            429 answers
//   webdata_retry_after_wait_seconds{route,status}  waits the service asked for (Retry-After)
//   webdata_pages_stored{kind,tenant}             documents newly written to the store
// and, from the workflow interceptor (workflow-metrics.ts, through workflow-metrics-sink.ts),
// webdata_credits{stage,tenant}, webdata_job_duration_seconds{kind},
// webdata_pipeline_runs{status,tenant}, webdata_pipeline_duration_seconds{status}.
// `tenant` is the run's tenant, bounded: past the first N distinct ones, `other` (tenant-labels.ts).
// Durations are in seconds, like the runtime's own (useSecondsForDurations).
import { fileURLToPath } from 'node:url';
import type { MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { WebDataClientOptions } from 'webdata-client';
import type { DocumentStore } from 'webdata-storage';
import type { InjectedSinks } from '@temporalio/worker';
import { currentActivityTenant, tenantLabels } from './tenant-labels.js';
import { workflowMetricsSinks } from './workflow-metrics-sink.js';
import type { WebDataMetricsSinks } from '../shared/workflow-metrics-spec.js';

/** The client's request observer (WebDataClientOptions.observer). */
export type RequestObserver = NonNullable<WebDataClientOptions['observer']>;

/** The workflow interceptor module recording credits, job and run durations (bundled with the workflows). */
export const WORKFLOW_METRICS_PATH = fileURLToPath(new URL(`./workflow-metrics${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

export interface WebDataMetrics {
  /** Give to `new WebDataClient({ observer })`: counts requests, 429s and Retry-After waits. */
  readonly observer: RequestObserver;
  /** Counts documents a store call newly wrote, by kind (crawl, batch, interact, scrape...). */
  pagesStored(kind: string, count: number): void;
  /** The worker's `sinks` for the workflow interceptor's metrics (WORKFLOW_METRICS_PATH). */
  readonly workflowSinks: InjectedSinks<WebDataMetricsSinks>;
}

/** Metrics on `meter`; default the installed runtime's meter (a no-op without an exporter). */
export function createWebDataMetrics(meter: MetricMeter = Runtime.instance().metricMeter): WebDataMetrics {
  const requests = meter.createCounter('webdata_http_requests', undefined, 'Requests to the Web Data service by method, route and status');
  const duration = meter.createHistogram('webdata_http_request_duration_seconds', 'float', 's', 'Duration of requests to the Web Data service');
  const rateLimited = meter.createCounter('webdata_rate_limited', undefined, 'Answers 429 (rate limited) from the Web Data service');
  const retryAfter = meter.createHistogram('webdata_retry_after_wait_seconds', 'float', 's', 'Waits the service asked for in Retry-After');
  const stored = meter.createCounter('webdata_pages_stored', undefined, 'Documents newly written to the store');
  return {
    workflowSinks: workflowMetricsSinks(meter),
    observer: {
      onResponse(o) {
        const status = o.status === undefined ? 'none' : String(o.status);
        const tenant = tenantLabels.label(currentActivityTenant());
        requests.add(1, { method: o.method, route: o.route, status, tenant });
        duration.record(o.durationMs / 1000, { method: o.method, route: o.route });
        if (o.status === 429) rateLimited.add(1, { route: `${o.method} ${o.route}`, tenant });
        if (o.retryAfterMs !== undefined) retryAfter.record(Math.max(0, o.retryAfterMs) / 1000, { route: `${o.method} ${o.route}`, status });
      },
    },
    pagesStored(kind, count) {
      if (count > 0) stored.add(count, { kind, tenant: tenantLabels.label(currentActivityTenant()) });
    },
  };
}

/** Buckets (seconds) of the package's histograms; the runtime's defaults suit request-sized durations. */
export const WEBDATA_HISTOGRAM_BUCKETS: Record<string, number[]> = {
  webdata_http_request_duration_seconds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  webdata_retry_after_wait_seconds: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
  webdata_job_duration_seconds: [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600],
  webdata_pipeline_duration_seconds: [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400],
};

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
