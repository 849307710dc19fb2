// The worker: a plain Temporal Worker, with the package's workflows and activities added by its plugin.
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { WebDataClient } from 'webdata-temporal/api';
import { createStore } from 'webdata-temporal/storage';
import { webDataPlugin } from 'webdata-temporal/worker';
import { settings } from './settings.mjs';

// Warnings and errors only: the SDK's INFO lines (bundle statistics, each workflow log) are many.
Runtime.install({ logger: new DefaultLogger('WARN') });

const client = new WebDataClient({ apiKey: settings.apiKey, baseUrl: settings.apiUrl });
const store = createStore(settings.store);
const connection = await NativeConnection.connect({ address: settings.temporalAddress });
const worker = await Worker.create({
  connection,
  taskQueue: settings.taskQueue,
  plugins: [webDataPlugin({ client, store })],
});

// The SDK shuts the worker down on SIGINT and SIGTERM; run() returns once in-flight tasks are done.
console.log(`example worker: task queue ${settings.taskQueue} on ${settings.temporalAddress}, service ${settings.apiUrl}`);
await worker.run();
await Promise.all([client.close(), store.close(), connection.close()]);
