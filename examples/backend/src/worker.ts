// The worker: `npm run worker`. One Temporal Worker runs this example's workflow and activities
// and, through webDataPlugin, the package's pipeline workflow and its activities.
import { fileURLToPath } from 'node:url';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { WebDataClient } from 'webdata-temporal/api';
import { createStore } from 'webdata-temporal/storage';
import { webDataPlugin } from 'webdata-temporal/worker';
import { createActivities } from './activities.js';
import { readWorkerSettings, settingsOrExit } from './settings.js';
import { createFolderSummaryStore } from './summary-store.js';

const settings = settingsOrExit('example worker', () => readWorkerSettings());
// Warnings and errors only: the SDK's INFO lines (bundle statistics, each workflow log) are many.
Runtime.install({ logger: new DefaultLogger('WARN') });

// This example's workflows and the package's, one module (.ts run by tsx, .js once compiled).
const workflowsPath = fileURLToPath(new URL(`./worker-workflows${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

const config = loadClientConnectConfig();
const connection = await NativeConnection.connect(config.connectionOptions);
const api = new WebDataClient({ apiKey: settings.apiKey, baseUrl: settings.apiUrl });
const store = createStore(settings.store);
const worker = await Worker.create({
  connection,
  namespace: config.namespace ?? 'default',
  taskQueue: settings.taskQueue,
  workflowsPath,
  activities: createActivities({ summaries: createFolderSummaryStore(settings.summaries) }),
  plugins: [webDataPlugin({ client: api, store })],
});

// The SDK shuts the worker down on SIGINT and SIGTERM; run() returns once in-flight tasks are done.
console.log(`example worker: task queue ${settings.taskQueue}, service ${settings.apiUrl}, store ${settings.store}, summaries ${settings.summaries}`);
await worker.run();
await Promise.all([api.close(), store.close(), connection.close()]);
