// The chaos harness: a Temporal dev server this process can stop and restart (same SQLite
// file, same port), the local service behind a listener that records every request (arrival,
// route, status, Retry-After, key), a credit ledger whose charges are recorded one by one, and
// the worker as a child process that can be killed with SIGKILL and started again.
// Everything listens on 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { resolveTemporalCli } from '../../src/devserver/index.js';
import { SEARCH_ATTRIBUTES } from '../../src/search-attributes.js';
import { WORKFLOWS_PATH } from '../../src/worker.js';
import { createServiceApp, type ServiceApp } from '../../packages/service/src/app.js';
import type { TeamConfig } from '../../packages/service/src/core/teams.js';
import { startDemoSite, type DemoSite } from '../../packages/service/src/demo-site/index.js';
import { listen, type ListeningServer } from '../../packages/service/src/http/server.js';
import { silentLogger } from '../../packages/service/src/http/logger.js';
import { FAULT_HEADER } from '../../packages/service/src/faults/index.js';
import { allowPrivateHosts } from '../helpers/private-hosts.js';

// ---- profiles ----------------------------------------------------------------------------

export interface ChaosProfile {
  name: 'full' | 'ci';
  /** Demo site content pages; the pipeline selects about this many URLs. */
  sitePages: number;
  /** Crawl limit; the batch stage scrapes what the crawl did not return. */
  crawlLimit: number;
  /** SIGKILLs of the worker during scenario 1. */
  kills: number;
  /** 429 storms during scenario 3, each `stormMs` long with Retry-After `retryAfterSec`; each begins with the first worker request that arrives `stormGapMs` after the last one ended (the first: the worker's 3rd request of the run), so that request meets it. */
  storms: number;
  stormMs: number;
  stormGapMs: number;
  retryAfterSec: number;
  /** Scenario 3's 5xx schedule: every `errorEvery`-th eligible request of the team (20% at 5). */
  errorEvery: number;
  latencyMs: number;
  /** Upper bound of one scenario (node:test timeout). */
  scenarioTimeoutMs: number;
  seed: number;
}

const PROFILES: Record<ChaosProfile['name'], Omit<ChaosProfile, 'seed'>> = {
  full: {
    name: 'full', sitePages: 1080, crawlLimit: 650, kills: 10,
    storms: 6, stormMs: 3_000, stormGapMs: 3_000, retryAfterSec: 2,
    errorEvery: 5, latencyMs: 500, scenarioTimeoutMs: 40 * 60_000,
  },
  ci: {
    name: 'ci', sitePages: 320, crawlLimit: 200, kills: 3,
    storms: 3, stormMs: 2_000, stormGapMs: 2_500, retryAfterSec: 1,
    errorEvery: 5, latencyMs: 500, scenarioTimeoutMs: 15 * 60_000,
  },
};

/** CHAOS_PROFILE=full (default) or ci; CHAOS_SEED picks the random moments (default 20240611). */
export function chaosProfile(env: NodeJS.ProcessEnv = process.env): ChaosProfile {
  const name = (env.CHAOS_PROFILE ?? 'full') as ChaosProfile['name'];
  const base = PROFILES[name];
  if (!base) throw new Error(`CHAOS_PROFILE: must be one of ${Object.keys(PROFILES).join(', ')}`);
  const seed = env.CHAOS_SEED ? Number(env.CHAOS_SEED) : 20240611;
  if (!Number.isInteger(seed)) throw new Error('CHAOS_SEED: must be an integer');
  return { ...base, seed };
}

/** mulberry32: a small seeded PRNG, so a failing chaos run can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- small helpers -------------------------------------------------------------------------

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `check` every `everyMs` until it returns true, at most `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

// ---- Temporal dev server ---------------------------------------------------------------------

export interface TemporalServer {
  address: string;
  dbFilename: string;
  /** A client on a connection that survives restarts (gRPC reconnects). */
  client: Client;
  stop(): Promise<void>;
  start(): Promise<void>;
  running(): boolean;
  close(): Promise<void>;
}

/** `temporal server start-dev` on a fixed port with a SQLite file, started and stopped by this process. */
export async function startTemporalServer(options: { dbFilename: string; port?: number }): Promise<TemporalServer> {
  const cli = await resolveTemporalCli();
  const found = cli.path;
  if (!found) throw new Error('the chaos tests run the Temporal CLI binary themselves: set TEMPORAL_CLI_PATH or build it (node --import tsx scripts/ensure-temporal-cli.ts)');
  const executable: string = found;
  let port = options.port ?? (await freePort());
  let address = `127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let stderr = '';

  // Its own HTTP API port too: the default (port + 1000) may be an ephemeral port in use.
  const args = () => [
    'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(httpPort), '--headless',
    '--db-filename', options.dbFilename, '--log-level', 'error',
    ...SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=${k.type === 'INT' ? 'Int' : 'Keyword'}`]),
  ];
  let httpPort = await freePort();

  async function start(): Promise<void> {
    if (child && child.exitCode === null) return;
    stderr = '';
    const proc = spawn(executable, args(), { stdio: ['ignore', 'ignore', 'pipe'] });
    child = proc;
    proc.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
    await waitFor(async () => {
      if (proc.exitCode !== null) throw new Error(`temporal dev server exited with ${proc.exitCode}: ${stderr}`);
      let conn: Connection | undefined;
      try {
        conn = await Connection.connect({ address, connectTimeout: 1000 });
        await conn.workflowService.getSystemInfo({});
        return true;
      } catch {
        return false;
      } finally {
        await conn?.close().catch(() => undefined);
      }
    }, 120_000, `the Temporal dev server on ${address}`, 300);
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  // A port can be taken between picking it and the server binding it: pick again, a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (err) {
      if (attempt >= 3 || options.port !== undefined || !/address already in use/.test(String(err))) throw err;
      port = await freePort();
      httpPort = await freePort();
      address = `127.0.0.1:${port}`;
    }
  }
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  return {
    address,
    dbFilename: options.dbFilename,
    client,
    start,
    stop,
    running: () => child !== undefined && child.exitCode === null,
    async close() {
      await connection.close().catch(() => undefined);
      await stop();
    },
  };
}

// ---- the local service, recorded --------------------------------------------------------------

export interface RecordedRequest {
  /** Arrival at the service (ms since epoch). */
  at: number;
  /** When the answer was finished (or the socket closed). */
  doneAt: number;
  /**
   * When its status line and headers were written: no client can hold the answer earlier. A
   * busy service process can record `doneAt` some ms after the client already read the answer.
   */
  answeredAt: number;
  method: string;
  path: string;
  /** Path and query, as sent. */
  url: string;
  /** "POST /v2/crawl", "GET /v2/crawl/:id"... or "? <path>" when no route matched. */
  route: string;
  status: number;
  retryAfterSec?: number;
  /** The service's fault header: "error", "rate_limit_storm" or "latency" when a fault touched it. */
  fault?: string;
  /** The bearer token's team key (the raw key never leaves this process). */
  key: string;
}

export interface LedgerEntry {
  at: number;
  teamId: string;
  apiKey: string;
  credits: number;
  reason: string;
  jobId?: string;
}

export interface RecordingService {
  url: string;
  siteUrl: string;
  app: ServiceApp;
  site: DemoSite;
  requests: RecordedRequest[];
  /** Requests that arrived and have no answer yet, by route. */
  inFlight(key?: string): string[];
  /** Requests that arrived so far with this key (answered or not). */
  arrived(key: string): number;
  /** Called synchronously as each request arrives (before it is handled); returns an unsubscribe. */
  onArrival(fn: (arrival: Arrival) => void): () => void;
  ledger: LedgerEntry[];
  close(): Promise<void>;
}

export interface Arrival {
  key: string;
  route: string;
  method: string;
  /** Path and query, as sent. */
  url: string;
  /** Requests with this key so far, this one included. */
  count: number;
  /** Resolves as the answer is finished (or the socket closed), in the same tick. */
  answered: Promise<void>;
}

export const WORKER_KEY = 'chaos-worker-key';
export const TEST_KEY = 'chaos-test-key';
export const WEBHOOK_SECRET = 'chaos-webhook-secret-5f1c0a';

/** One team; the worker and the test use different keys so recorded requests tell them apart. */
export function chaosTeam(extra: Partial<TeamConfig> = {}): TeamConfig {
  return {
    id: 'local',
    apiKeys: [WORKER_KEY, TEST_KEY],
    credits: 10_000_000,
    rateLimits: {},
    concurrency: 10,
    maxBrowserSessions: 5,
    webhookSecret: WEBHOOK_SECRET,
    features: { ignoreRobotsTxt: true, zeroDataRetention: true, searchEnterprise: ['anon', 'zdr'] },
    ...extra,
  };
}

export async function startRecordingService(options: { sitePages: number; seed?: number; teams?: TeamConfig[] }): Promise<RecordingService> {
  const app = createServiceApp({ teams: options.teams ?? [chaosTeam()], logger: silentLogger });
  const requests: RecordedRequest[] = [];
  const open = new Map<number, { route: string; key: string }>();
  const arrivals = new Map<string, number>();
  const arrivalHooks = new Set<(arrival: Arrival) => void>();
  let nextId = 0;
  const ledger: LedgerEntry[] = [];
  const charge = app.ledger.charge.bind(app.ledger);
  app.ledger.charge = (entry) => {
    if (entry.credits > 0) ledger.push({ at: Date.now(), ...entry, credits: entry.credits });
    charge(entry);
  };
  const recordingListener = (req: IncomingMessage, res: ServerResponse) => {
    const at = Date.now();
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/(.)\/+$/, '$1');
    let route = `? ${path}`;
    try {
      const m = app.router.match(method, path);
      if (m.kind === 'found') route = `${method} ${m.route.pattern}`;
    } catch {
      // Malformed path: the platform answers 400.
    }
    const auth = String(req.headers.authorization ?? '');
    const key = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    let recorded = false;
    let headAt: number | undefined;
    // res.end() without writeHead() goes through writeHead too (ServerResponse._implicitHeader).
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((...args: unknown[]) => {
      headAt ??= Date.now();
      return writeHead(...args);
    }) as typeof res.writeHead;
    let answer: () => void = () => {};
    const answered = new Promise<void>((r) => { answer = r; });
    const id = nextId++;
    open.set(id, { route, key });
    arrivals.set(key, (arrivals.get(key) ?? 0) + 1);
    for (const hook of arrivalHooks) hook({ key, route, method, url: req.url ?? '/', count: arrivals.get(key) ?? 0, answered });
    const record = () => {
      if (recorded) return;
      recorded = true;
      open.delete(id);
      answer();
      const ra = res.getHeader('retry-after');
      const fault = res.getHeader(FAULT_HEADER);
      requests.push({
        at, doneAt: Date.now(), answeredAt: headAt ?? Date.now(), method, path, url: req.url ?? '/', route, key,
        status: res.headersSent ? res.statusCode : 0,
        ...(ra !== undefined ? { retryAfterSec: Number(ra) } : {}),
        ...(fault !== undefined ? { fault: String(fault) } : {}),
      });
    };
    res.once('finish', record);
    res.once('close', record);
    app.listener(req, res);
  };
  let server: ListeningServer | undefined;
  let site: DemoSite | undefined;
  try {
    server = await listen(recordingListener, { host: '127.0.0.1', port: 0 });
    site = await startDemoSite({ pages: options.sitePages, seed: options.seed, port: 0 });
  } catch (err) {
    await server?.close();
    await app.close();
    throw err;
  }
  const s = server;
  const d = site;
  // Runs crawl the demo site on 127.0.0.1: allowed by host:port here and in the workers spawned.
  allowPrivateHosts(d.url);
  return {
    url: s.url,
    siteUrl: d.url,
    app,
    site: d,
    requests,
    arrived: (key) => arrivals.get(key) ?? 0,
    onArrival(fn) {
      arrivalHooks.add(fn);
      return () => { arrivalHooks.delete(fn); };
    },
    inFlight: (key) => [...open.values()].filter((r) => key === undefined || r.key === key).map((r) => r.route),
    ledger,
    async close() {
      await s.close();
      await app.close();
      await d.close();
    },
  };
}

// ---- the worker child ---------------------------------------------------------------------------

/** Bundles the workflows once, so a restarted worker is ready in a second or two. */
export async function prebuiltWorkflowBundle(dir: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never,
    // The packages' sources, as the worker child runs them (no build needed; test/helpers/workflow-bundle.ts).
    webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, conditionNames: ['webdata-source', '...'] } }),
  });
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'workflow-bundle.js');
  writeFileSync(path, code);
  return path;
}

export interface WorkerEnv {
  temporalAddress: string;
  serviceUrl: string;
  apiKey: string;
  store: string;
  taskQueue: string;
  bundlePath?: string;
  collectPageSize?: number;
  /** TEMPORAL_LOG_LEVEL of the worker; default CHAOS_WORKER_LOG_LEVEL or WARN. */
  logLevel?: string;
}

export interface WorkerProcess {
  child: ChildProcess;
  startedAt: number;
  /** Resolves when the worker printed its start line (bundle loaded, polling). */
  ready: Promise<number>;
  exited: Promise<number | null>;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** the worker from sources configured only through WEBDATA_* and TEMPORAL_* variables. */
export function spawnWorker(env: WorkerEnv, log: string[] = []): WorkerProcess {
  const startedAt = Date.now();
  const child = spawn(process.execPath, ['--conditions=webdata-source', '--import', 'tsx', 'src/worker.ts'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: env.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      WEBDATA_API_URL: env.serviceUrl,
      // The runner's own sites and receivers by host:port (allowPrivateHosts); the rest is from scratch.
      ...(process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES ? { WEBDATA_ALLOW_PRIVATE_ADDRESSES: process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES } : {}),
      WEBDATA_API_KEY: env.apiKey,
      WEBDATA_STORE: env.store,
      WEBDATA_TASK_QUEUE: env.taskQueue,
      ...(env.bundlePath ? { WEBDATA_WORKFLOW_BUNDLE: env.bundlePath } : {}),
      ...(env.collectPageSize ? { WEBDATA_COLLECT_PAGE_SIZE: String(env.collectPageSize) } : {}),
      TEMPORAL_LOG_LEVEL: env.logLevel ?? process.env.CHAOS_WORKER_LOG_LEVEL ?? 'WARN',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let resolveReady: (t: number) => void = () => {};
  let rejectReady: (e: Error) => void = () => {};
  const ready = new Promise<number>((res, rej) => { resolveReady = res; rejectReady = rej; });
  ready.catch(() => undefined);
  const onData = (d: Buffer) => {
    const text = d.toString();
    out += text;
    log.push(text);
    if (out.includes('webdata worker: task queue')) resolveReady(Date.now());
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => {
    rejectReady(new Error(`worker exited (${code}) before it was ready: ${out.slice(-2000)}`));
    res(code);
  }));
  return {
    child,
    startedAt,
    ready,
    exited,
    output: () => out,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}
