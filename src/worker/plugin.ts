// The Temporal plugin: adds this package's workflows and activities to a user's own Worker.
//   Worker.create({ connection, taskQueue, plugins: [webDataPlugin({ client, store })] })
// When the Worker already has workflows of its own (workflowsPath or a bundle), the plugin
// cannot merge two workflow modules: re-export ours from yours
// (`export * from 'webdata-temporal/workflows'`) and the plugin adds the activities only.
import type { ReplayWorkerOptions, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { ActivityDeps } from '../activities/deps.js';
import { noopMetricMeter } from '@temporalio/common';
import { createWebDataMetrics, withStoreMetrics, WORKFLOW_METRICS_PATH } from './metrics.js';
import { workflowMetricsSinks } from './workflow-metrics-sink.js';
import { localActivityTenantInterceptor } from './tenant-labels.js';
import { workflowBundlerOptions } from './bundler-options.js';
import { WORKFLOWS_PATH } from './worker.js';
import { API_KEY_REF_INTERCEPTOR_PATH, createApiKeyRefs, type ApiKeyResolver } from '../keys/index.js';

export const PLUGIN_NAME = 'webdata-temporal';

function withWorkflows<T extends { workflowsPath?: string; workflowBundle?: unknown; bundlerOptions?: object }>(options: T): T {
  if (options.workflowsPath || options.workflowBundle) return options;
  return { ...options, workflowsPath: WORKFLOWS_PATH, bundlerOptions: { ...workflowBundlerOptions(), ...options.bundlerOptions } };
}

/**
 * `metrics` (default on): pages stored, and the workflow's credits, job and run durations, on
 * the runtime's meter (exported when the Runtime has a metrics exporter; see docs/operations.md "Observe it").
 * The workflow part needs the interceptor module in the bundle: added unless the Worker has a
 * prebuilt bundle (then bundle with `WORKFLOW_METRICS_PATH` among workflowInterceptorModules).
 * `apiKeys` resolves the keys runs name (input.apiKeyRef; docs/api-keys-by-reference.md); the
 * workflow side needs API_KEY_REF_INTERCEPTOR_PATH in the bundle (added unless prebuilt).
 */
export function webDataPlugin(deps: ActivityDeps, options: { metrics?: boolean; apiKeys?: ApiKeyResolver } = {}): WorkerPlugin {
  return {
    get name() {
      return PLUGIN_NAME;
    },
    configureWorker(workerOptions: WorkerOptions): WorkerOptions {
      const metrics = options.metrics === false ? undefined : createWebDataMetrics();
      const keyRefs = createApiKeyRefs({ client: deps.client, resolve: options.apiKeys });
      const keyed = { ...deps, client: keyRefs.client };
      const activities = createActivities(metrics ? { ...keyed, store: withStoreMetrics(deps.store, metrics) } : keyed);
      // The user's own activities win a name clash: theirs are the more specific choice.
      const configured = withWorkflows({
        ...workerOptions,
        activities: { ...activities, ...workerOptions.activities },
        // Registered with metrics off too (a no-op meter): the ledger workflows report through it.
        sinks: { ...(metrics?.workflowSinks ?? workflowMetricsSinks(noopMetricMeter)), ...workerOptions.sinks },
        interceptors: { ...workerOptions.interceptors, activity: [...(workerOptions.interceptors?.activity ?? []), keyRefs.activityInterceptor, localActivityTenantInterceptor] },
      });
      if (configured.workflowBundle) return configured;
      const interceptors = configured.interceptors;
      const modules = [...(interceptors?.workflowModules ?? []), ...(metrics ? [WORKFLOW_METRICS_PATH] : []), API_KEY_REF_INTERCEPTOR_PATH];
      return { ...configured, interceptors: { ...interceptors, workflowModules: modules } };
    },
    configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
      return withWorkflows(options);
    },
  };
}
