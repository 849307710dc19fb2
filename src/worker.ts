// The worker entry (`webdata-temporal/worker`): createWebDataWorker for a Worker of the package
// alone, webDataPlugin to add the package to a Worker of your own, and the environment-configured
// worker of `webdata worker`. Run directly (`node lib/worker.js`), it starts that worker.
import { fileURLToPath } from 'node:url';
import { runWorkerFromEnv } from './worker/worker.js';

export {
  WORKFLOWS_PATH, createWebDataWorker, createWorkerFromEnv, runWorkerFromEnv, workerRuntimeOptions, type WebDataWorkerOptions,
} from './worker/worker.js';
export { webDataPlugin, PLUGIN_NAME } from './worker/plugin.js';
export { writeWorkflowBundle } from './worker/bundle.js';
export { createWebDataMetrics, withStoreMetrics, combineObservers, WORKFLOW_METRICS_PATH, WEBDATA_HISTOGRAM_BUCKETS, type WebDataMetrics, type RequestObserver } from './worker/metrics.js';
export { readOtlpSettings, startTracing, TracingUnavailableError, TRACING_PACKAGES, type OtlpSettings, type Tracing } from './worker/tracing.js';
export { createWorkerLogger, formatLogLine } from './worker/logging.js';
export { localActivityTenantInterceptor } from './worker/tenant-labels.js';
export { readWorkerSettings, WorkerSettingsError, type WorkerSettings, type WorkflowTaskPollers } from './config/worker-env.js';
export {
  API_KEY_REF_INTERCEPTOR_PATH, API_KEY_REF_HEADER, createApiKeyRefs, envApiKeyResolver, fileApiKeyResolver, apiKeyEnvName, apiKeyResolverFromSetting,
  ApiKeyResolverError, type ApiKeyResolver, type ApiKeyRefs,
} from './keys/index.js';

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runWorkerFromEnv();
}
