// The HTTP starter: `npm run server`. Starts crawls on the example's task queue and receives
// the service's webhooks on the same port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { createWebhookHandler } from 'webdata-temporal/webhooks';
import { createCrawlApi } from './http-api.js';
import { readServerSettings, settingsOrExit } from './settings.js';

const settings = settingsOrExit('example server', () => readServerSettings());
const config = loadClientConnectConfig();
const connection = await Connection.connect(config.connectionOptions);
const client = new Client({ connection, ...(config.namespace ? { namespace: config.namespace } : {}) });

const webhooks = createWebhookHandler({
  client,
  ...(settings.webhookSecret ? { secret: settings.webhookSecret } : {}),
  log: (line) => console.error(`example server: ${line}`),
  onDecision: (d) => {
    if (d.outcome === 'signalled') console.log(`example server: webhook ${d.type ?? ''} signalled ${d.workflowId ?? ''}`);
  },
});

const server = createServer();
await new Promise<void>((resolve) => server.listen(settings.port, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const base = settings.publicUrl ?? `http://127.0.0.1:${port}`;
server.on('request', createCrawlApi({ client, taskQueue: settings.taskQueue, webhookUrl: `${base}/webhooks`, webhooks }));
console.log(`example server: http://127.0.0.1:${port} (task queue ${settings.taskQueue}, webhooks ${base}/webhooks)`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => {
      // Signals of deliveries already answered finish before the connection closes.
      void webhooks.drain().then(() => connection.close());
    });
  });
}
