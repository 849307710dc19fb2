import { parseArgs } from 'node:util';
import { startDevStack } from '../dev-stack.js';

export async function devCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'temporal-port': { type: 'string' },
      'ui-port': { type: 'string' },
      'webhook-port': { type: 'string' },
      'service-port': { type: 'string' },
      'site-port': { type: 'string' },
      pages: { type: 'string' },
      store: { type: 'string' },
      db: { type: 'string' },
    },
  });
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const stack = await startDevStack({
    // Fixed, familiar ports so other shells need no settings (TEMPORAL_ADDRESS defaults to 7233).
    temporalPort: num(values['temporal-port']) ?? 7233,
    uiPort: num(values['ui-port']) ?? 8233,
    servicePort: num(values['service-port']) ?? 3002,
    sitePort: num(values['site-port']) ?? 3003,
    webhookPort: num(values['webhook-port']) ?? 3004,
    sitePages: num(values.pages),
    store: values.store ?? '.data/store',
    dbFilename: values.db,
    log: (line) => console.error(line),
  });
  console.log([
    'webdata dev stack is up (Ctrl-C stops it):',
    `  Temporal        ${stack.temporal.address} (namespace ${stack.temporal.namespace})`,
    `  Temporal UI     ${stack.temporal.uiUrl ?? '-'}`,
    `  local service   ${stack.service.url}  (API key ${stack.service.apiKey})`,
    `  demo site       ${stack.service.siteUrl ?? '-'}`,
    `  webhooks        ${stack.webhook.url}`,
    `  store           ${stack.storeSpec}`,
    `  worker          task queue ${stack.taskQueue}`,
    '',
    'In another shell:',
    `  export TEMPORAL_ADDRESS=${stack.temporal.address} WEBDATA_STORE=${stack.storeSpec}`,
    `  npm run webdata -- run ${stack.service.siteUrl ?? 'http://127.0.0.1:PORT'}/ --include '^/docs' --webhook-url ${stack.webhook.url}`,
  ].join('\n'));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  console.log('stopping...');
  await stack.close();
  return 0;
}
