// Temporal client for CLI commands, from the environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TLS/API key per @temporalio/envconfig conventions). An unreachable server is reported within
// a few seconds, naming the address and how to point the CLI elsewhere.
import { connect as tcpConnect } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { CliError, EXIT_USAGE, oneLine } from './errors.js';
import { dataConverterFromEnv } from '../codec/index.js';

/** How long the CLI waits for Temporal to answer before it reports it unreachable. */
export const CONNECT_TIMEOUT_MS = 4_000;
export const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';

export interface CliConnection {
  client: Client;
  address: string;
  namespace: string;
  close(): Promise<void>;
}

export function temporalTarget(env: NodeJS.ProcessEnv = process.env): { address: string; namespace: string; config: ReturnType<typeof loadClientConnectConfig> } {
  let config;
  try {
    config = loadClientConnectConfig({
      overrideEnvVars: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    });
  } catch (err) {
    throw new CliError(`Temporal connection settings are invalid: ${oneLine((err as Error).message)} (check TEMPORAL_* variables and TEMPORAL_CONFIG_FILE)`, 1, { cause: err });
  }
  return { address: config.connectionOptions.address ?? DEFAULT_TEMPORAL_ADDRESS, namespace: config.namespace ?? 'default', config };
}

/**
 * One TCP connect to the address: "connection refused" or an unknown host answers at once,
 * where gRPC would retry until its deadline. Resolves undefined when something listens.
 */
export function probe(address: string, timeoutMs: number): Promise<string | undefined> {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address.trim());
  if (!m) return Promise.resolve(undefined); // not host:port: let gRPC decide
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: m[1], port: Number(m[2]) });
    const done = (reason: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    };
    const timer = setTimeout(() => done(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const why = err.code === 'ECONNREFUSED' ? 'connection refused (nothing listens there)'
        : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' ? `unknown host ${m[1]}`
          : oneLine(err.message);
      done(why);
    });
  });
}

function unreachable(address: string, namespace: string, reason: string, cause?: unknown): CliError {
  return new CliError(
    `cannot reach Temporal at ${address} (namespace ${namespace}): ${reason}. Start a local one with \`webdata dev\`, or set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*) to your server`,
    1,
    { cause },
  );
}

/** The payload codec WEBDATA_PAYLOAD_KEYS(_FILE) sets: the CLI reads and writes encrypted runs as the worker does. */
function cliDataConverter(env: NodeJS.ProcessEnv) {
  try {
    return dataConverterFromEnv(env);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT_USAGE, { cause: err });
  }
}

export async function connectClient(env: NodeJS.ProcessEnv = process.env): Promise<CliConnection> {
  const dataConverter = cliDataConverter(env);
  const { address, namespace, config } = temporalTarget(env);
  const { tls, apiKey, metadata } = config.connectionOptions;
  const started = Date.now();
  const refused = await probe(address, CONNECT_TIMEOUT_MS);
  if (refused) throw unreachable(address, namespace, refused);
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, tls, apiKey, metadata, connectTimeout: Math.max(1_000, CONNECT_TIMEOUT_MS - (Date.now() - started)) });
  } catch (err) {
    throw unreachable(address, namespace, oneLine((err as Error).message ?? String(err)), err);
  }
  return { client: new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}) }), address, namespace, close: () => connection.close() };
}
