// The worker: runs the pipeline workflow and every activity against one service and one store.
// `node --import tsx src/worker.ts` (or `webdata worker`) configures it from the environment.
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { NativeConnection, Runtime, Worker, type LogLevel, type RuntimeOptions, type WorkerOptions } from '@temporalio/worker';
import { WebDataClient } from 'webdata-client';
import type { PrivateAddressOption } from 'webdata-contract';
import { createActivities } from '../activities/index.js';
import { API_KEY_REF_INTERCEPTOR_PATH, apiKeyResolverFromSetting, createApiKeyRefs, type ApiKeyResolver } from '../keys/index.js';
import { readWorkerSettings, WorkerSettingsError, type WorkerSettings, type WorkflowTaskPollers } from '../config/worker-env.js';
import { workflowBundlerOptions } from './bundler-options.js';
import { createWorkerLogger, formatLogLine } from './logging.js';
import { combineObservers, createWebDataMetrics, WEBDATA_HISTOGRAM_BUCKETS, withStoreMetrics, WORKFLOW_METRICS_PATH, type WebDataMetrics } from './metrics.js';
import { readOtlpSettings, startTracing, TracingUnavailableError, type OtlpSettings } from './tracing.js';
import { workflowMetricsSinks } from './workflow-metrics-sink.js';
import { localActivityTenantInterceptor } from './tenant-labels.js';
import { createStore } from 'webdata-storage';
import type { DocumentStore } from 'webdata-storage';
import { noopMetricMeter, type DataConverter, type VersioningBehavior } from '@temporalio/common';
import { bundleEncodesFailures, encryptsPayloads, webDataDataConverter, type PayloadKeyring } from '../codec/index.js';

/** The workflows module, next to this one (.ts from sources, .js in the installed package). */
export const WORKFLOWS_PATH = fileURLToPath(new URL(`../workflows/index${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

export interface WebDataWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue: string;
  client: WebDataClient;
  store: DocumentStore;
  /** A prebuilt bundle (see scripts/bundle-workflows.ts); default: bundle src/workflows at start. */
  workflowBundlePath?: string;
  /**
   * Default the SDK's 100. Kept after measuring (bench/many-pipelines.ts, 100 pipelines of 50
   * pages at once, one worker): with 100 slots activities waited for one (schedule → start p95
   * 5.4 s) but with 400 they did not (1.4 s) and the runs were slower (0.77x the service's
   * ceiling against 0.93x and 0.81x with 100, same run), because more of the runs' job followers
   * read status pages at once, and those requests (2,589 against 2,150-2,268) take CPU from the
   * service's scraping. Slots throttle the service load; raise them with the service's capacity.
   */
  maxConcurrentActivityTaskExecutions?: number;
  maxConcurrentWorkflowTaskExecutions?: number;
  maxTaskQueueActivitiesPerSecond?: number;
  /**
   * Threads that run workflow code (WorkerOptions.workflowThreadPoolSize), each with its own V8
   * context. Default the SDK's: 1 with the reused context. Measured (bench/many-pipelines.ts,
   * 100 runs at once on one worker, 2-core machine at load ~38): 2 threads ran at 0.23x the
   * service's ceiling where 1 ran at 0.39x in the same run — on a machine without idle cores a
   * second thread only adds contention. Raise it on a worker host with cores to spare: the
   * workflow thread is the worker's busiest (70% busy while 100 pipelines ran, CPU profile).
   */
  workflowThreads?: number;
  /** Runs in the sticky cache (WorkerOptions.maxCachedWorkflows); default the SDK's (from the heap size). */
  maxCachedWorkflows?: number;
  /**
   * How the worker polls for workflow tasks (WorkerOptions.workflowTaskPollerBehavior). Default
   * `autoscaling`: the SDK's own default is at most 10 polls, of which only a fifth (2) ask for
   * new runs' first tasks, and a task queue has 4 partitions on a default server, so in a burst of
   * starts some first tasks waited in a partition no poll was on: up to 4 s, where the others
   * waited at most 2 (bench/many-pipelines.ts, 100 runs at once). Autoscaling polls as the
   * server's backlog hints ask. A number: at most that many polls at once, the SDK's way. A
   * worker given `maxConcurrentWorkflowTaskPolls` or a poller behaviour in `overrides` keeps it.
   */
  workflowTaskPollers?: WorkflowTaskPollers;
  collectPageSize?: number;
  /** Longest pause between a job follower's status reads (ActivityDeps.followMaxIdleMs). */
  followMaxIdleMs?: number;
  /** robots.txt agent of the pipeline's own robots check; default `WebDataBot` (ActivityDeps.robotsUserAgent). */
  robotsUserAgent?: string;
  /** Signs the change summary webhook (ActivityDeps.changesWebhookSecret). */
  changesWebhookSecret?: string;
  /** Private hosts the worker's own fetches may reach (ActivityDeps.allowPrivateAddresses). */
  allowPrivateAddresses?: PrivateAddressOption;
  /**
   * The package's metrics (pages stored, and the workflow's credits, job and run durations) on
   * the runtime's meter; default on (a no-op without a metrics exporter), `false` for none.
   * Request metrics need the client built with `observer: metrics.observer`.
   */
  metrics?: WebDataMetrics | false;
  /**
   * Worker versioning: the worker joins this worker deployment version (`deploymentName` +
   * `buildId`) with `useWorkerVersioning`. New runs go to the deployment's current version
   * (set it when a build is ready: docs/operations.md, "Upgrade safely"); with the default behaviour PINNED
   * a run stays on the version it started on. A run can last hours or wait days for a budget
   * raise; moved to a new build mid-run it would replay its history with code that may take
   * other branches. (The behaviour is set on the versioned worker, not declared in the workflow:
   * a declared behaviour makes every unversioned worker's workflow tasks fail on the server,
   * "versioning behavior cannot be specified without deployment options".)
   */
  deployment?: { deploymentName: string; buildId: string; defaultVersioningBehavior?: VersioningBehavior };
  /**
   * Resolves the key a run names (input.apiKeyRef) to an API key: `client` serves runs that name
   * none. Unset: a run that names a key fails at its first activity (docs/api-keys-by-reference.md).
   */
  apiKeys?: ApiKeyResolver;
  /** Extra WorkerOptions (interceptors, sinks, plugins, tuning). */
  overrides?: Partial<WorkerOptions>;
  /**
   * Payload encryption: the keys (WEBDATA_PAYLOAD_KEYS) or a DataConverter of your own
   * (`webDataDataConverter(keyring)` of `webdata-temporal/codec`). A prebuilt bundle must then
   * carry the encoded failure converter (`npm run bundle` with the keys set), and one without keys
   * must not: the worker refuses a mismatch in one line.
   */
  payloadKeys?: PayloadKeyring;
  dataConverter?: DataConverter;
}

export async function createWebDataWorker(options: WebDataWorkerOptions): Promise<Worker> {
  const workflowSource = options.workflowBundlePath
    ? { workflowBundle: { codePath: options.workflowBundlePath } }
    : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: workflowBundlerOptions() };
  const metrics = options.metrics === false ? undefined : (options.metrics ?? createWebDataMetrics());
  const store = metrics ? withStoreMetrics(options.store, metrics) : options.store;
  const interceptors = options.overrides?.interceptors;
  const dataConverter = options.dataConverter ?? (options.payloadKeys ? webDataDataConverter(options.payloadKeys) : undefined);
  if (options.workflowBundlePath) checkBundleConverter(options.workflowBundlePath, dataConverter);
  // A prebuilt bundle carries its interceptor modules (bundle.ts adds the metrics one).
  const workflowModules = options.workflowBundlePath || !metrics ? interceptors?.workflowModules : [...(interceptors?.workflowModules ?? []), WORKFLOW_METRICS_PATH];
  // Key names: the workflow side carries a run's name to its activities (a prebuilt bundle has it,
  // bundle.ts), the activity side runs each activity with its name's client.
  const keyModules = options.workflowBundlePath ? workflowModules : [...(workflowModules ?? []), API_KEY_REF_INTERCEPTOR_PATH];
  const keyRefs = createApiKeyRefs({ client: options.client, resolve: options.apiKeys });
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    ...workflowSource,
    activities: createActivities({ client: keyRefs.client, store, collectPageSize: options.collectPageSize, followMaxIdleMs: options.followMaxIdleMs, robotsUserAgent: options.robotsUserAgent, changesWebhookSecret: options.changesWebhookSecret, allowPrivateAddresses: options.allowPrivateAddresses }),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions,
    maxConcurrentWorkflowTaskExecutions: options.maxConcurrentWorkflowTaskExecutions,
    maxTaskQueueActivitiesPerSecond: options.maxTaskQueueActivitiesPerSecond,
    ...(options.workflowThreads ? { workflowThreadPoolSize: options.workflowThreads } : {}),
    ...(options.maxCachedWorkflows ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
    ...(options.overrides?.maxConcurrentWorkflowTaskPolls === undefined ? { workflowTaskPollerBehavior: workflowTaskPollerBehavior(options.workflowTaskPollers ?? 'autoscaling') } : {}),
    ...(options.deployment ? {
      workerDeploymentOptions: {
        useWorkerVersioning: true,
        version: { deploymentName: options.deployment.deploymentName, buildId: options.deployment.buildId },
        defaultVersioningBehavior: options.deployment.defaultVersioningBehavior ?? 'PINNED',
      },
    } : {}),
    ...(dataConverter ? { dataConverter } : {}),
    ...options.overrides,
    // Registered with metrics off too (a no-op meter): the ledger workflows report through it.
    sinks: { ...(metrics?.workflowSinks ?? workflowMetricsSinks(noopMetricMeter)), ...options.overrides?.sinks },
    interceptors: { ...interceptors, ...(keyModules ? { workflowModules: keyModules } : {}), activity: [...(interceptors?.activity ?? []), keyRefs.activityInterceptor, localActivityTenantInterceptor] },
  });
}

/** The SDK's poller behaviour for a WEBDATA_WORKFLOW_TASK_POLLERS value. */
function workflowTaskPollerBehavior(pollers: WorkflowTaskPollers): NonNullable<WorkerOptions['workflowTaskPollerBehavior']> {
  return pollers === 'autoscaling' ? { type: 'autoscaling' } : { type: 'simple-maximum', maximum: pollers };
}

/**
 * The failure converter in a prebuilt bundle is fixed when it is built: workflows' failures of a
 * worker that encrypts must be encoded there too, and those of one that does not must stay readable.
 */
function checkBundleConverter(bundlePath: string, dataConverter: DataConverter | undefined): void {
  const encrypting = encryptsPayloads(dataConverter);
  const carries = bundleEncodesFailures(bundlePath);
  if (encrypting && !carries) throw new WorkerSettingsError([`WEBDATA_WORKFLOW_BUNDLE: ${bundlePath} was built without the encoded failure converter that encrypted payloads need: rebuild it with WEBDATA_PAYLOAD_KEYS or WEBDATA_PAYLOAD_KEYS_FILE set (npm run bundle)`]);
  if (!encrypting && carries) throw new WorkerSettingsError([`WEBDATA_WORKFLOW_BUNDLE: ${bundlePath} was built for encrypted payloads (failures encoded): set WEBDATA_PAYLOAD_KEYS or WEBDATA_PAYLOAD_KEYS_FILE, or rebuild it without them`]);
}

/** Builds a worker from the environment (Temporal connection via @temporalio/envconfig conventions). */
export async function createWorkerFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<{ worker: Worker; settings: WorkerSettings; close(): Promise<void> }> {
  const settings = readWorkerSettings(env);
  const connect = loadClientConnectConfig({
    overrideEnvVars: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
  });
  const connection = await NativeConnection.connect(connect.connectionOptions);
  const store = await createStore(settings.store);
  // Traces only when an OTLP endpoint is set (the OpenTelemetry packages load only then).
  const tracing = await startTracing(readOtlpSettings(env));
  const metrics = createWebDataMetrics();
  const client = new WebDataClient({
    apiKey: settings.apiKey,
    baseUrl: settings.apiUrl,
    timeoutMs: settings.apiTimeoutMs,
    allowPrivateAddresses: settings.allowPrivateAddresses,
    observer: combineObservers(metrics.observer, tracing?.observer),
  });
  const worker = await createWebDataWorker({
    connection,
    namespace: connect.namespace,
    taskQueue: settings.taskQueue,
    client,
    store,
    workflowBundlePath: settings.workflowBundlePath,
    maxConcurrentActivityTaskExecutions: settings.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: settings.maxConcurrentWorkflowTasks,
    maxTaskQueueActivitiesPerSecond: settings.maxTaskQueueActivitiesPerSecond,
    workflowThreads: settings.workflowThreads,
    maxCachedWorkflows: settings.maxCachedWorkflows,
    workflowTaskPollers: settings.workflowTaskPollers,
    collectPageSize: settings.collectPageSize,
    followMaxIdleMs: settings.followMaxIdleMs,
    robotsUserAgent: settings.robotsUserAgent,
    changesWebhookSecret: settings.changesWebhookSecret,
    allowPrivateAddresses: settings.allowPrivateAddresses,
    deployment: settings.deployment,
    payloadKeys: settings.payloadKeys,
    apiKeys: apiKeyResolverFromSetting(settings.apiKeys, env),
    metrics,
    overrides: tracing ? { plugins: [tracing.plugin] } : undefined,
  });
  return {
    worker,
    settings,
    async close() {
      await client.close();
      await store.close();
      await connection.close();
      await tracing?.shutdown();
    },
  };
}

/** Runs until SIGINT/SIGTERM, then drains in-flight tasks and exits. */
export async function runWorkerFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const level = (env.TEMPORAL_LOG_LEVEL ?? 'INFO').toUpperCase();
  if (!['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].includes(level)) {
    console.error(`webdata worker: TEMPORAL_LOG_LEVEL: must be one of TRACE, DEBUG, INFO, WARN, ERROR`);
    process.exitCode = 2;
    return;
  }
  let built;
  try {
    const early = readWorkerSettings(env);
    Runtime.install(workerRuntimeOptions(level as LogLevel, early, readOtlpSettings(env)));
    built = await createWorkerFromEnv(env);
  } catch (err) {
    if (err instanceof WorkerSettingsError) {
      for (const line of err.problems) console.error(`webdata worker: ${line}`);
      process.exitCode = 2;
      return;
    }
    if (err instanceof TracingUnavailableError) {
      console.error(`webdata worker: ${err.message}`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
  const { worker, settings } = built;
  // Worker.runUntil/shutdown: the SDK installs SIGINT/SIGTERM handlers that call shutdown().
  // The ready line is printed whatever the log level (tools wait for it).
  const ready = `webdata worker: task queue ${settings.taskQueue}, service ${settings.apiUrl}, store ${settings.store}`;
  const version = settings.deployment ? `, deployment ${settings.deployment.deploymentName} build ${settings.deployment.buildId}` : '';
  const encrypted = settings.payloadKeys ? `, payloads encrypted (key ${settings.payloadKeys.current.id})` : '';
  const exporting = (settings.metricsBind ? `, metrics on http://${settings.metricsBind}/metrics` : '') + version + encrypted;
  const say = (message: string) => console.log(settings.logFormat === 'json'
    ? formatLogLine({ level: 'INFO', message, timestampNanos: BigInt(Date.now()) * 1_000_000n, meta: { taskQueue: settings.taskQueue } }, 'json')
    : message);
  say(ready + exporting);
  // What the worker runs with, defaults resolved: the first thing to read when runs queue up.
  say(`webdata worker: concurrency ${describeConcurrency(worker.options)}, follower pause up to ${settings.followMaxIdleMs ?? 1_000} ms, ${describeHeapLimit()}`);
  try {
    await worker.run();
  } finally {
    await built.close();
  }
}

/**
 * The V8 heap limit of each of the worker's threads (main and workflow threads alike). V8 sizes
 * it from the machine's memory unless `--max-old-space-size` (in NODE_OPTIONS) sets it, and
 * collects lazily below it: the worker's RSS follows the limit more than its live runs, and the
 * SDK sizes its default workflow cache from it (docs/operations.md, "Memory").
 */
export function describeHeapLimit(limitBytes = getHeapStatistics().heap_size_limit, execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS): string {
  const mib = Math.round(limitBytes / (1024 * 1024));
  // The last one wins; NODE_OPTIONS comes before the command line's options.
  const flag = [...(nodeOptions ?? '').split(/\s+/), ...execArgv].filter((a) => /^--max[-_]old[-_]space[-_]size=/.test(a)).at(-1);
  return `heap limit ${mib} MiB a thread (${flag ?? 'V8 default; set --max-old-space-size in NODE_OPTIONS'})`;
}

type SlotOptions = { type: string; numSlots?: number };
type PollerOptions = { type: string; maximum?: number };

/** One line of the worker's effective slots, cache and pollers (`activities 100, workflow tasks 40, ...`). */
export function describeConcurrency(options: Worker['options']): string {
  const slots = (s: SlotOptions) => (s.type === 'fixed-size' ? String(s.numSlots) : s.type);
  const pollers = (p: PollerOptions) => (p.type === 'simple-maximum' ? String(p.maximum) : p.type === 'autoscaling' ? `autoscaling up to ${p.maximum}` : p.type);
  const tuner = options.tuner as unknown as { activityTaskSlotSupplier: SlotOptions; workflowTaskSlotSupplier: SlotOptions };
  return [
    `activities ${slots(tuner.activityTaskSlotSupplier)}`,
    `workflow tasks ${slots(tuner.workflowTaskSlotSupplier)}`,
    `workflow threads ${options.workflowThreadPoolSize}`,
    `cached workflows ${options.maxCachedWorkflows}`,
    `activity pollers ${pollers(options.activityTaskPollerBehavior as PollerOptions)}`,
    `workflow task pollers ${pollers(options.workflowTaskPollerBehavior as PollerOptions)}`,
    `activities/s on the queue ${options.maxTaskQueueActivitiesPerSecond ?? 'unlimited'}`,
  ].join(', ');
}

/**
 * Runtime options of the environment-configured worker: its logger (WEBDATA_LOG_FORMAT, core
 * logs forwarded to it) and one metrics exporter for the SDK's and the package's metrics:
 * Prometheus on WEBDATA_METRICS_BIND, else OTLP to OTEL_EXPORTER_OTLP_(METRICS_)ENDPOINT.
 */
export function workerRuntimeOptions(level: LogLevel, settings: Pick<WorkerSettings, 'metricsBind' | 'logFormat'>, otlp?: OtlpSettings): RuntimeOptions {
  const metrics = settings.metricsBind
    ? { prometheus: { bindAddress: settings.metricsBind, useSecondsForDurations: true, histogramBucketOverrides: WEBDATA_HISTOGRAM_BUCKETS } }
    : otlp?.metricsUrl
      ? { otel: { url: otlp.metricsUrl, http: otlp.protocol !== 'grpc', headers: otlp.headers, metricsExportInterval: 10_000, useSecondsForDurations: true, histogramBucketOverrides: WEBDATA_HISTOGRAM_BUCKETS } }
      : undefined;
  return {
    logger: createWorkerLogger(level, settings.logFormat),
    telemetryOptions: {
      logging: { forward: {} },
      ...(metrics ? { metrics } : {}),
    },
  };
}
