import { parseArgs } from 'node:util';
import { startDevStack } from '../dev-stack.js';
import { UsageError } from '../errors.js';
import { payloadKeysFromEnv } from '../../codec/index.js';
import { recordDevUi } from '../ui-link.js';

export async function devCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
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
      'codec-port': { type: 'string' },
    },
  });
  if (positionals.length) throw new UsageError(`dev takes no arguments, got "${positionals.join(' ')}" (see webdata dev --help)`);
  const num = (name: keyof typeof values) => {
    const v = values[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) > 65535) throw new UsageError(`--${name}: must be a whole number${name === 'pages' ? '' : ' (a port, 0-65535)'}, got "${String(v)}"`);
    return Number(v);
  };
  // WEBDATA_PAYLOAD_KEYS(_FILE): the stack's worker and client encrypt, and the UI decodes through a codec server.
  let payloadKeys;
  try {
    payloadKeys = payloadKeysFromEnv();
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
  const stack = await startDevStack({
    // Fixed, familiar ports so other shells need no settings (TEMPORAL_ADDRESS defaults to 7233).
    temporalPort: num('temporal-port') ?? 7233,
    uiPort: num('ui-port') ?? 8233,
    servicePort: num('service-port') ?? 3002,
    sitePort: num('site-port') ?? 3003,
    webhookPort: num('webhook-port') ?? 3004,
    sitePages: num('pages'),
    store: values.store ?? '.data/store',
    dbFilename: values.db,
    payloadKeys,
    codecPort: num('codec-port') ?? 8234,
    log: (line) => console.error(line),
  });
  // `webdata run` in another shell links its runs to this UI (TEMPORAL_UI_URL overrides).
  const forget = stack.temporal.uiUrl ? recordDevUi(stack.temporal.address, stack.temporal.uiUrl) : () => {};
  console.log([
    'webdata dev stack is up (Ctrl-C stops it):',
    `  Temporal        ${stack.temporal.address} (namespace ${stack.temporal.namespace})`,
    `  Temporal UI     ${stack.temporal.uiUrl ?? '-'}`,
    `  local service   ${stack.service.url}  (API key ${stack.service.apiKey})`,
    `  demo site       ${stack.service.siteUrl ?? '-'}`,
    `  webhooks        ${stack.webhook.url}`,
    `  store           ${stack.storeSpec}`,
    `  worker          task queue ${stack.taskQueue}`,
    ...(stack.codec ? [`  codec server    ${stack.codec.url}  (payloads encrypted with key ${payloadKeys?.current.id}; temporal workflow show --codec-endpoint ${stack.codec.url})`] : []),
    '',
    'In another shell:',
    `  export TEMPORAL_ADDRESS=${stack.temporal.address} WEBDATA_STORE=${stack.storeSpec}${stack.temporal.uiUrl ? ` TEMPORAL_UI_URL=${stack.temporal.uiUrl}` : ''}`,
    // `webdata monitor` talks to the service directly.
    `  export WEBDATA_API_URL=${stack.service.url} WEBDATA_API_KEY=${stack.service.apiKey}`,
    // Runs name the demo site and the receiver: private addresses, allowed by host:port only.
    `  export WEBDATA_ALLOW_PRIVATE_ADDRESSES=${stack.privateHosts.join(',')}`,
    // The keys are not printed: the other shell sets the same variable as this one.
    ...(stack.codec ? ['  # and the same WEBDATA_PAYLOAD_KEYS (or WEBDATA_PAYLOAD_KEYS_FILE) as here: the CLI encrypts and decrypts with it'] : []),
    `  npm run webdata -- run ${stack.service.siteUrl ?? 'http://127.0.0.1:PORT'}/ --include '^/docs' --webhook-url ${stack.webhook.url}`,
  ].join('\n'));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  console.log('stopping...');
  forget();
  await stack.close();
  return 0;
}
