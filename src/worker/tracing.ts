// Traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is
// set: Temporal's OpenTelemetry plugin spans the workflow and each activity (parent-linked
// through Temporal headers), and the client's request observer adds one CLIENT span per HTTP
// request to the service, a child of the running activity's span. One trace per run.
// The OpenTelemetry packages are optional peer dependencies, imported only when tracing is on.
import type { WorkerPlugin } from '@temporalio/worker';
import type { RequestObserver } from './metrics.js';

export const TRACING_PACKAGES = [
  '@temporalio/interceptors-opentelemetry',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/resources',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/exporter-trace-otlp-http',
];

export interface OtlpSettings {
  /** Base endpoint (`http://collector:4318`); signals go to `/v1/traces` and `/v1/metrics` below it. */
  endpoint?: string;
  tracesUrl?: string;
  metricsUrl?: string;
  /** `http/protobuf` (default), `http/json` or `grpc` (metrics only; traces always use OTLP/HTTP JSON). */
  protocol: string;
  headers: Record<string, string>;
  serviceName: string;
}

function signalUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}

/** The standard OTEL_* variables, or undefined when no OTLP endpoint is set. */
export function readOtlpSettings(env: NodeJS.ProcessEnv = process.env): OtlpSettings | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || undefined;
  const metrics = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim() || undefined;
  if (!endpoint && !traces && !metrics) return undefined;
  const protocol = (env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  const headers: Record<string, string> = {};
  for (const pair of (env.OTEL_EXPORTER_OTLP_HEADERS ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return {
    endpoint,
    tracesUrl: traces ?? (endpoint ? signalUrl(endpoint, 'v1/traces') : undefined),
    metricsUrl: metrics ?? (endpoint ? (protocol === 'grpc' ? endpoint : signalUrl(endpoint, 'v1/metrics')) : undefined),
    protocol,
    headers,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'webdata-worker',
  };
}

export interface Tracing {
  /** Add to the Worker's `plugins`: workflow and activity interceptors, the workflow span sink. */
  plugin: WorkerPlugin;
  /** Give to the WebDataClient: one span per request to the service. */
  observer: RequestObserver;
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>;
}

export class TracingUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`OTEL_EXPORTER_OTLP_ENDPOINT is set but tracing needs these packages: npm install ${TRACING_PACKAGES.join(' ')}`, { cause });
    this.name = 'TracingUnavailableError';
  }
}

/** Starts span export to `settings.tracesUrl`; undefined when no traces URL is set. */
export async function startTracing(settings: OtlpSettings | undefined): Promise<Tracing | undefined> {
  if (!settings?.tracesUrl) return undefined;
  let mods;
  try {
    mods = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@temporalio/interceptors-opentelemetry'),
    ]);
  } catch (err) {
    throw new TracingUnavailableError(err);
  }
  const [otel, sdk, resources, hooks, otlp, temporalOtel] = mods;
  const resource = new resources.Resource({ 'service.name': settings.serviceName });
  const exporter = new otlp.OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.headers });
  const processor = new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 });
  const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [processor] });
  // Async-local context: an HTTP span started inside an activity finds the activity's span.
  provider.register({ contextManager: new hooks.AsyncLocalStorageContextManager().enable() });
  const tracer = provider.getTracer('webdata-temporal');
  const plugin = new temporalOtel.OpenTelemetryPlugin({ resource, spanProcessor: processor, tracer });

  const observer: RequestObserver = {
    onRequest(start) {
      // Attributes name the route and the call; never the URL's query, headers or the API key.
      const span = tracer.startSpan(`${start.method} ${start.route}`, {
        kind: otel.SpanKind.CLIENT,
        attributes: { 'http.request.method': start.method, 'url.template': start.route, 'webdata.call': start.what },
      });
      return (outcome) => {
        if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
        if (outcome.retryAfterMs !== undefined) span.setAttribute('webdata.retry_after_ms', outcome.retryAfterMs);
        if (outcome.errorKind) {
          span.setAttribute('error.type', outcome.errorKind);
          span.setStatus({ code: otel.SpanStatusCode.ERROR });
        }
        span.end();
      };
    },
  };
  return {
    plugin,
    observer,
    async shutdown() {
      await provider.shutdown();
    },
  };
}
