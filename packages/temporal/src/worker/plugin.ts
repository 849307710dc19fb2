// The Temporal plugin: adds this package's workflows and activities to a user's own Worker.
//   Worker.create({ connection, taskQueue, plugins: [webDataPlugin({ client, store })] })
// When the Worker already has workflows of its own (workflowsPath or a bundle), the plugin
// cannot merge two workflow modules: re-export ours from yours
// (`export * from 'webdata-temporal/workflows'`) and the plugin adds the activities only.
import type { ReplayWorkerOptions, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { ActivityDeps } from '../activities/deps.js';
import { WORKFLOWS_PATH } from './worker.js';

export const PLUGIN_NAME = 'webdata-temporal';

function withWorkflows<T extends { workflowsPath?: string; workflowBundle?: unknown }>(options: T): T {
  return options.workflowsPath || options.workflowBundle ? options : { ...options, workflowsPath: WORKFLOWS_PATH };
}

export function webDataPlugin(deps: ActivityDeps): WorkerPlugin {
  return {
    get name() {
      return PLUGIN_NAME;
    },
    configureWorker(options: WorkerOptions): WorkerOptions {
      // The user's own activities win a name clash: theirs are the more specific choice.
      return withWorkflows({ ...options, activities: { ...createActivities(deps), ...options.activities } });
    },
    configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
      return withWorkflows(options);
    },
  };
}
