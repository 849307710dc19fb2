// The example's settings, from the environment. Each process reads only what it uses: the
// server needs no service key, the worker no HTTP port. The Temporal connection (TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS) is read by @temporalio/envconfig; the address policy
// (WEBDATA_ALLOW_PRIVATE_ADDRESSES) by webdata-temporal itself. A bad value is one line naming
// the variable and the rule.

export class SettingsError extends Error {
  override name = 'SettingsError';
}

type Env = Record<string, string | undefined>;

export interface ServerSettings {
  taskQueue: string;
  port: number;
  /** Where the service reaches this server (the webhook URL given to runs); default http://127.0.0.1:<port>. */
  publicUrl: string | undefined;
  /** The team's webhook secret: deliveries must be signed with it. */
  webhookSecret: string | undefined;
}

export interface WorkerSettings {
  taskQueue: string;
  apiUrl: string;
  apiKey: string;
  store: string;
  summaries: string;
}

const set = (env: Env, name: string): string | undefined => (env[name] === '' ? undefined : env[name]);

function taskQueue(env: Env): string {
  return set(env, 'EXAMPLE_TASK_QUEUE') ?? 'example-backend';
}

function httpUrl(env: Env, name: string, fallback?: string): string | undefined {
  const value = set(env, name) ?? fallback;
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingsError(`${name}: must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingsError(`${name}: must be an http(s) URL, got ${JSON.stringify(value)}`);
  return value.replace(/\/+$/, '');
}

export function readServerSettings(env: Env = process.env): ServerSettings {
  const portText = set(env, 'PORT') ?? '8080';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw new SettingsError(`PORT: must be a port number 0-65535 (0 takes a free one), got ${JSON.stringify(portText)}`);
  return {
    taskQueue: taskQueue(env),
    port,
    publicUrl: httpUrl(env, 'EXAMPLE_PUBLIC_URL'),
    webhookSecret: set(env, 'WEBDATA_WEBHOOK_SECRET'),
  };
}

export function readWorkerSettings(env: Env = process.env): WorkerSettings {
  const apiKey = set(env, 'WEBDATA_API_KEY');
  if (apiKey === undefined) throw new SettingsError('WEBDATA_API_KEY: must be set (the service\'s API key; `webdata dev` prints the one its service takes)');
  return {
    taskQueue: taskQueue(env),
    apiUrl: httpUrl(env, 'WEBDATA_API_URL', 'http://127.0.0.1:3002') as string,
    apiKey,
    store: set(env, 'WEBDATA_STORE') ?? '.data/store',
    summaries: set(env, 'EXAMPLE_SUMMARIES') ?? '.data/summaries',
  };
}

/** Reads settings or exits 2 with the one line that says what is wrong. */
export function settingsOrExit<T>(program: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    console.error(`${program}: ${err.message}`);
    process.exit(2);
  }
}
