// The worker: runs the pipeline workflow and every activity against one service and one store.
// `node --import tsx src/worker.ts` (or `webdata worker`) configures it from the environment.
import { fileURLToPath } from 'node:url';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type WorkerOptions } from '@temporalio/worker';
import { WebDataClient } from 'webdata-client';
import { createActivities } from '../activities/index.js';
import { readWorkerSettings, WorkerSettingsError, type WorkerSettings } from '../config/worker-env.js';
import { createStore } from 'webdata-storage';
import type { DocumentStore } from 'webdata-storage';

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
  maxConcurrentActivityTaskExecutions?: number;
  maxConcurrentWorkflowTaskExecutions?: number;
  maxTaskQueueActivitiesPerSecond?: number;
  collectPageSize?: number;
  /** robots.txt agent of the pipeline's own robots check; default `WebDataBot` (ActivityDeps.robotsUserAgent). */
  robotsUserAgent?: string;
  /** Extra WorkerOptions (interceptors, sinks, tuning). */
  overrides?: Partial<WorkerOptions>;
}

export async function createWebDataWorker(options: WebDataWorkerOptions): Promise<Worker> {
  const workflowSource = options.workflowBundlePath
    ? { workflowBundle: { codePath: options.workflowBundlePath } }
    : { workflowsPath: WORKFLOWS_PATH };
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue,
    ...workflowSource,
    activities: createActivities({ client: options.client, store: options.store, collectPageSize: options.collectPageSize, robotsUserAgent: options.robotsUserAgent }),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions,
    maxConcurrentWorkflowTaskExecutions: options.maxConcurrentWorkflowTaskExecutions,
    maxTaskQueueActivitiesPerSecond: options.maxTaskQueueActivitiesPerSecond,
    ...options.overrides,
  });
}

/** Builds a worker from the environment (Temporal connection via @temporalio/envconfig conventions). */
export async function createWorkerFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<{ worker: Worker; settings: WorkerSettings; close(): Promise<void> }> {
  const settings = readWorkerSettings(env);
  const connect = loadClientConnectConfig({
    overrideEnvVars: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
  });
  const connection = await NativeConnection.connect(connect.connectionOptions);
  const store = await createStore(settings.store);
  const client = new WebDataClient({ apiKey: settings.apiKey, baseUrl: settings.apiUrl, timeoutMs: settings.apiTimeoutMs });
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
    collectPageSize: settings.collectPageSize,
    robotsUserAgent: settings.robotsUserAgent,
  });
  return {
    worker,
    settings,
    async close() {
      await client.close();
      await store.close();
      await connection.close();
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
  Runtime.install({ logger: new DefaultLogger(level as LogLevel) });
  let built;
  try {
    built = await createWorkerFromEnv(env);
  } catch (err) {
    if (err instanceof WorkerSettingsError) {
      for (const line of err.problems) console.error(`webdata worker: ${line}`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
  const { worker, settings } = built;
  // Worker.runUntil/shutdown: the SDK installs SIGINT/SIGTERM handlers that call shutdown().
  console.log(`webdata worker: task queue ${settings.taskQueue}, service ${settings.apiUrl}, store ${settings.store}`);
  try {
    await worker.run();
  } finally {
    await built.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runWorkerFromEnv();
}
