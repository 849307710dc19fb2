// The worker side: createWebDataWorker for a Worker of the package alone, webDataPlugin to add
// the package to a Worker of your own, and the environment-configured worker of `webdata worker`.
export {
  WORKFLOWS_PATH, createWebDataWorker, createWorkerFromEnv, runWorkerFromEnv, workerRuntimeOptions, type WebDataWorkerOptions,
} from './worker.js';
export { webDataPlugin, PLUGIN_NAME } from './plugin.js';
export { writeWorkflowBundle } from './bundle.js';
export { createWebDataMetrics, withStoreMetrics, combineObservers, WORKFLOW_METRICS_PATH, WEBDATA_HISTOGRAM_BUCKETS, type WebDataMetrics, type RequestObserver } from './metrics.js';
export { readOtlpSettings, startTracing, TracingUnavailableError, TRACING_PACKAGES, type OtlpSettings, type Tracing } from './tracing.js';
export { createWorkerLogger, formatLogLine } from './logging.js';
export { readWorkerSettings, WorkerSettingsError, type WorkerSettings } from '../config/worker-env.js';
