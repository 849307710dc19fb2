// `webdata webhooks --port N [--host H]`: the production webhook receiver (startWebhookServer),
// configured from the environment: the Temporal connection (TEMPORAL_*, as `webdata worker`),
// WEBDATA_WEBHOOK_SECRET and WEBDATA_WEBHOOK_SIGNATURE_HEADERS. Runs until SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { startWebhookServer } from '../../webhooks/index.js';
import { connectClient } from '../connect.js';
import { CliError, oneLine, UsageError } from '../errors.js';
import { untilStopSignal } from '../stop-signal.js';

export async function webhooksCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { port: { type: 'string' }, host: { type: 'string' } } });
  if (positionals.length > 0) throw new UsageError(`webhooks takes no arguments, got "${positionals.join(' ')}": webdata webhooks --port N [--host H]`);
  if (values.port === undefined) throw new UsageError('--port is required: webdata webhooks --port N [--host H] (e.g. --port 3004)');
  if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) throw new UsageError(`--port: must be a whole number (a port, 0-65535), got "${values.port}"`);
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') throw new UsageError('--host: must not be empty (e.g. 127.0.0.1 or 0.0.0.0)');
  const secret = env.WEBDATA_WEBHOOK_SECRET || undefined;
  let signatureHeaders: string[] | undefined;
  if (env.WEBDATA_WEBHOOK_SIGNATURE_HEADERS !== undefined && env.WEBDATA_WEBHOOK_SIGNATURE_HEADERS.trim() !== '') {
    signatureHeaders = env.WEBDATA_WEBHOOK_SIGNATURE_HEADERS.split(',').map((h) => h.trim()).filter((h) => h !== '');
    const bad = signatureHeaders.find((h) => !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(h));
    if (bad !== undefined || signatureHeaders.length === 0) {
      throw new UsageError(`WEBDATA_WEBHOOK_SIGNATURE_HEADERS: must be a comma list of header names, e.g. x-firecrawl-signature,x-service-signature${bad !== undefined ? `, got "${bad}"` : ''}`);
    }
  }

  const conn = await connectClient(env);
  let server;
  try {
    server = await startWebhookServer({
      client: conn.client,
      secret,
      signatureHeaders,
      port: Number(values.port),
      host,
      log: (line) => console.error(`webdata webhooks: ${line}`),
    });
  } catch (err) {
    await conn.close();
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'the port is in use (pick another --port)'
      : code === 'EACCES' ? 'permission denied (ports below 1024 need privileges)'
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? `no such local address (check --host)`
          : oneLine((err as Error).message);
    throw new CliError(`cannot listen on ${host}:${values.port}: ${why}`, 1, { cause: err });
  }
  const mode = secret ? 'signatures required' : 'no WEBDATA_WEBHOOK_SECRET: deliveries are unauthenticated hints';
  console.log(`webdata webhooks: receiving on ${server.url} (Temporal ${conn.address}, namespace ${conn.namespace}; ${mode})`);

  await untilStopSignal();
  await server.close();
  await conn.close();
  console.log('webdata webhooks: stopped');
  return 0;
}
