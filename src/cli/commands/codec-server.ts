// `webdata codec-server`: the remote codec server the Temporal UI and `temporal --codec-endpoint`
// call to show encrypted payloads decoded, with the keys of WEBDATA_PAYLOAD_KEYS(_FILE). Runs
// until SIGINT/SIGTERM. `webdata codec-server --new-key` prints one fresh key entry and exits.
import { parseArgs } from 'node:util';
import { DEFAULT_UI_ORIGINS, newKeyEntry, payloadKeysFromEnv, startCodecServer } from '../../codec/index.js';
import { CliError, oneLine, UsageError } from '../errors.js';
import { untilStopSignal } from '../stop-signal.js';

export const DEFAULT_CODEC_PORT = 8888;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export async function codecServerCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      origin: { type: 'string', multiple: true },
      'auth-token-env': { type: 'string' },
      'new-key': { type: 'boolean' },
      'key-id': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`codec-server takes no arguments, got "${positionals.join(' ')}" (see webdata codec-server --help)`);
  if (values['new-key']) {
    try {
      console.log(newKeyEntry(values['key-id']));
    } catch (err) {
      throw new UsageError(`--key-id: ${(err as Error).message.replace(/^key id: /, '')}`, { cause: err });
    }
    return 0;
  }
  if (values['key-id'] !== undefined) throw new UsageError('--key-id: goes with --new-key');

  const port = values.port ?? String(DEFAULT_CODEC_PORT);
  if (!/^\d+$/.test(port) || Number(port) > 65535) throw new UsageError(`--port: must be a whole number (a port, 0-65535), got "${port}"`);
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') throw new UsageError('--host: must not be empty (e.g. 127.0.0.1)');
  const origins = values.origin ?? DEFAULT_UI_ORIGINS;
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new UsageError(`--origin: must be a web origin, scheme://host[:port] without a path, e.g. https://temporal-ui.example.com, got "${origin}"`);
    }
  }
  let authToken: string | undefined;
  const tokenVar = values['auth-token-env'];
  if (tokenVar !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenVar)) throw new UsageError(`--auth-token-env: must name an environment variable, e.g. CODEC_TOKEN, got "${tokenVar}"`);
    authToken = env[tokenVar];
    if (!authToken) throw new UsageError(`--auth-token-env: ${tokenVar} is not set (the token requests must carry as Authorization: Bearer <token>)`);
  }
  let keyring;
  try {
    keyring = payloadKeysFromEnv(env);
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
  if (!keyring) throw new UsageError('WEBDATA_PAYLOAD_KEYS or WEBDATA_PAYLOAD_KEYS_FILE: is required, the keys the workers encrypt with (make one with `webdata codec-server --new-key`)');

  let server;
  try {
    server = await startCodecServer({ keyring, port: Number(port), host, origins, authToken, log: (line) => console.error(`webdata codec-server: ${line}`) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'the port is in use (pick another --port)'
      : code === 'EACCES' ? 'permission denied (ports below 1024 need privileges)'
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? 'no such local address (check --host)'
          : oneLine((err as Error).message);
    throw new CliError(`cannot listen on ${host}:${port}: ${why}`, 1, { cause: err });
  }
  const auth = authToken ? `requests need Authorization: Bearer <$${tokenVar}>` : 'no auth token';
  console.log(`webdata codec-server: ${server.url} (keys ${keyring.ids.join(', ')}, current ${keyring.current.id}; UI origins ${origins.join(' ')}; ${auth})`);
  if (!authToken && !LOOPBACK.test(host)) console.error(`webdata codec-server: warning: listening on ${host} without --auth-token-env: anyone who reaches it can decode payloads`);

  await untilStopSignal();
  await server.close();
  console.log('webdata codec-server: stopped');
  return 0;
}
