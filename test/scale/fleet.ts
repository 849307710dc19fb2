// The scale test's harness: profiles, the PostgreSQL document store (scripts/postgres.sh in its
// own folder, restartable, stopped by a watchdog when this process dies), the worker fleet
// (child processes that can be SIGKILLed and restarted, their memory sampled), the webhook
// receiver process, and the service's own records of its rate limiter.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TeamConfig } from '../../packages/service/src/core/teams.js';
import type { RouteGroup } from '../../packages/service/src/core/routes.js';
import { RATE_WINDOW_MS, RateLimiter } from '../../packages/service/src/ratelimit/index.js';
import { sampleProcess, type ProcessSampler } from '../../bench/lib/proc-sampler.js';
import { chaosTeam, freePort, spawnWorker, type WorkerEnv, type WorkerProcess } from '../chaos/harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// ---- profiles ----------------------------------------------------------------------------------

/** A kind of run: the demo site it crawls and what it does there. Every run of a shape is compared with a clean run of it. */
export interface Shape {
  name: string;
  /** Content pages of the shape's demo site (the selection is about this many URLs). */
  sitePages: number;
  interact?: boolean;
  /** The crawl fails as configured (its includePaths match nothing) and support ask repairs it. */
  repair?: boolean;
}

export interface ScaleProfile {
  name: 'full' | 'ci';
  /** Runs per shape. */
  runs: Array<{ shape: Shape; count: number }>;
  /** How many of the runs are started by triggering a schedule instead of directly. */
  scheduled: number;
  killEveryMs: number;
  /** Upper bound on kills (ci: 1). */
  maxKills: number;
  /** The Temporal server restarts once this fraction of the runs completed; the store at the second. */
  restartTemporalAt: number;
  restartStoreAt: number;
  /** Webhook receiver load: signed deliveries, 10 % duplicates and 5 % forged among them. */
  deliveries: number;
  /** The team's requests per minute per route group. */
  rateLimits: Partial<Record<RouteGroup, number>>;
  /** Generous bound on waiting for the runs (never a measured figure). */
  runsDeadlineMs: number;
  /** The pipelines' safety poll: their longest poll interval while a job runs. */
  safetyPollMs: number;
  seed: number;
}

const S = (sitePages: number): Shape => ({ name: `site-${sitePages}`, sitePages });
const INTERACT: Shape = { name: 'interact', sitePages: 100, interact: true };
const REPAIR: Shape = { name: 'repair', sitePages: 100, repair: true };

const PROFILES: Record<ScaleProfile['name'], Omit<ScaleProfile, 'seed'>> = {
  full: {
    name: 'full',
    runs: [
      { shape: S(10), count: 72 }, { shape: S(30), count: 65 }, { shape: S(100), count: 45 },
      { shape: S(300), count: 10 }, { shape: S(1000), count: 2 }, { shape: INTERACT, count: 3 }, { shape: REPAIR, count: 3 },
    ],
    scheduled: 20,
    killEveryMs: 20_000,
    maxKills: Number.POSITIVE_INFINITY,
    restartTemporalAt: 0.25,
    restartStoreAt: 0.5,
    deliveries: 10_000,
    rateLimits: { map: 120, crawl: 120, batch_scrape: 120, crawl_status: 2400, batch_status: 2400, scrape: 600, interact: 60, browser: 60, support: 60, team: 600 },
    runsDeadlineMs: 150 * 60_000,
    safetyPollMs: 10_000,
  },
  ci: {
    name: 'ci',
    runs: [
      { shape: S(10), count: 6 }, { shape: S(30), count: 5 }, { shape: S(100), count: 3 }, { shape: INTERACT, count: 1 }, { shape: REPAIR, count: 1 },
    ],
    scheduled: 3,
    killEveryMs: 20_000,
    maxKills: 1,
    restartTemporalAt: 0.25,
    restartStoreAt: 0.5,
    deliveries: 2_000,
    rateLimits: { map: 15, crawl: 60, batch_scrape: 60, crawl_status: 1200, batch_status: 1200, scrape: 600, interact: 60, browser: 60, support: 60, team: 600 },
    runsDeadlineMs: 20 * 60_000,
    safetyPollMs: 10_000,
  },
};

/** SCALE_PROFILE=full (default) or ci; SCALE_SEED picks which worker each kill hits. */
export function scaleProfile(env: NodeJS.ProcessEnv = process.env): ScaleProfile {
  const name = (env.SCALE_PROFILE ?? 'full') as ScaleProfile['name'];
  const base = PROFILES[name];
  if (!base) throw new Error(`SCALE_PROFILE: must be one of ${Object.keys(PROFILES).join(', ')}`);
  const seed = env.SCALE_SEED ? Number(env.SCALE_SEED) : 20261123;
  if (!Number.isInteger(seed)) throw new Error('SCALE_SEED: must be an integer');
  return { ...base, seed };
}

export const SCALE_WORKER_KEY = 'scale-worker-key';
export const SCALE_TEST_KEY = 'scale-test-key';

/** The one team every worker calls as: rate limits per route group, a shared page concurrency. */
export function scaleTeam(profile: ScaleProfile): TeamConfig {
  return chaosTeam({ apiKeys: [SCALE_WORKER_KEY, SCALE_TEST_KEY], rateLimits: profile.rateLimits, concurrency: 20, maxBrowserSessions: 5 });
}

// ---- the rate limiter's own records ----------------------------------------------------------------

export interface Admission {
  /** The limiter's own timestamp of the admitted request (the one its window counts). */
  at: number;
  teamId: string;
  group: RouteGroup;
}

/**
 * Records every request the service's rate limiter admits, with the limiter's own timestamp, and
 * every refusal. The limiter is private to the service app, so its class is wrapped (this
 * process runs the service); the recorded stamps are those its sliding window counts.
 */
export function recordRateLimiter(): { admitted: Admission[]; refused: number; restore(): void } {
  const original = RateLimiter.prototype.take;
  const out = { admitted: [] as Admission[], refused: 0, restore: () => { RateLimiter.prototype.take = original; } };
  RateLimiter.prototype.take = function take(this: RateLimiter, team, group) {
    const decision = original.call(this, team, group);
    if (!decision.allowed) {
      out.refused += 1;
      return decision;
    }
    const windows = (this as unknown as { windows: Map<string, number[]> }).windows;
    const stamp = windows.get(`${team.id}\0${group}`)?.at(-1);
    if (stamp !== undefined) out.admitted.push({ at: stamp, teamId: team.id, group });
    return decision;
  };
  return out;
}

/** The most admitted requests in any sliding window of the limiter's length, per route group. */
export function peakPerWindow(admitted: Admission[]): Map<RouteGroup, number> {
  const byGroup = new Map<RouteGroup, number[]>();
  for (const a of admitted) byGroup.set(a.group, [...(byGroup.get(a.group) ?? []), a.at]);
  const peaks = new Map<RouteGroup, number>();
  for (const [group, stamps] of byGroup) {
    stamps.sort((a, b) => a - b);
    let peak = 0;
    // Window (t - 60 s, t] ending at each admission, as the limiter counts it.
    for (let i = 0, j = 0; i < stamps.length; i++) {
      while (stamps[j] <= stamps[i] - RATE_WINDOW_MS) j++;
      peak = Math.max(peak, i - j + 1);
    }
    peaks.set(group, peak);
  }
  return peaks;
}

// ---- the PostgreSQL document store -----------------------------------------------------------------

export interface StorePostgres {
  url: string;
  restart(): Promise<{ downMs: number }>;
  stop(): Promise<void>;
}

function postgresScript(dir: string, command: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(ROOT, 'scripts', 'postgres.sh'), command], {
      env: { ...process.env, WEBDATA_PG_DIR: dir, WEBDATA_PG_DB: 'webdata_scale', WEBDATA_PG_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`postgres.sh ${command} exited with ${code}: ${err}`))));
  });
}

/**
 * A PostgreSQL of its own for the document store (scripts/postgres.sh with its own folder). Its
 * folder sits directly under /tmp: the server runs as the postgres user, who cannot enter a
 * private temporary folder. A detached watchdog stops it when this process dies.
 */
export async function startStorePostgres(): Promise<StorePostgres> {
  const dir = `/tmp/webdata-scale-store-${process.pid}`;
  const watchdog = spawn('bash', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; WEBDATA_PG_DIR=${dir} bash ${join(ROOT, 'scripts', 'postgres.sh')} destroy; rm -f ${dir}.lock`], {
    detached: true, stdio: 'ignore',
  });
  watchdog.unref();
  // A port of its own, picked here: the Temporal server's PostgreSQL (and other clones') may be
  // starting at the same moment and pick the same one; taken meanwhile, another is picked.
  let port = 0;
  let url = '';
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      url = (await postgresScript(dir, 'start', port)).split('\n').pop() ?? '';
      break;
    } catch (err) {
      if (attempt >= 5 || !/already in use|could not create any TCP\/IP sockets/.test(String(err))) throw err;
    }
  }
  if (!url.startsWith('postgres://')) throw new Error(`postgres.sh start printed no URL: ${url}`);
  return {
    url,
    async restart() {
      const t0 = Date.now();
      await postgresScript(dir, 'stop', port);
      const again = (await postgresScript(dir, 'start', port)).split('\n').pop();
      // The port file keeps the port; a different URL would strand every worker's pool.
      if (again !== url) throw new Error(`the store's PostgreSQL came back as ${again}, not ${url}`);
      return { downMs: Date.now() - t0 };
    },
    async stop() {
      await postgresScript(dir, 'destroy', port).catch(() => undefined);
      // postgres.sh keeps its lock file beside the folder.
      rmSync(`${dir}.lock`, { force: true });
    },
  };
}

// ---- the worker fleet ----------------------------------------------------------------------------

export interface Fleet {
  /** Live worker processes, one per slot. */
  workers: WorkerProcess[];
  /** SIGKILLs the worker in `slot` and starts another in its place; resolves when it polls again. */
  killAndRestart(slot: number): Promise<{ readyMs: number }>;
  /** Worker processes that exited without being killed by the fleet. */
  unexpectedExits: string[];
  /** Highest resident memory of any worker process so far, kB. */
  peakRssKb(): number;
  stop(): Promise<void>;
}

export async function startFleet(size: number, env: WorkerEnv): Promise<Fleet> {
  const samplers: ProcessSampler[] = [];
  const unexpectedExits: string[] = [];
  const killing = new Set<WorkerProcess>();
  let stopping = false;
  const logs: string[] = [];
  const spawnOne = async (): Promise<WorkerProcess> => {
    // A worker started while the server is still coming back can give up connecting: retry.
    for (let attempt = 1; ; attempt++) {
      const w = spawnWorker(env, logs);
      if (w.child.pid) samplers.push(sampleProcess(w.child.pid, 500));
      try {
        await w.ready;
        void w.exited.then((code) => {
          if (!killing.has(w) && !stopping) unexpectedExits.push(`exit ${code}: ${w.output().slice(-1500)}`);
        });
        return w;
      } catch (err) {
        if (attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 3000));
      }
    }
  };
  const workers = await Promise.all(Array.from({ length: size }, () => spawnOne()));
  return {
    workers,
    unexpectedExits,
    async killAndRestart(slot) {
      const victim = workers[slot];
      killing.add(victim);
      await victim.kill('SIGKILL');
      const t0 = Date.now();
      workers[slot] = await spawnOne();
      return { readyMs: Date.now() - t0 };
    },
    peakRssKb() {
      let peak = 0;
      // A killed worker not yet reaped has no VmRSS (NaN): such samples are skipped.
      for (const s of samplers) for (const m of s.samples) if (m.rssKb > peak) peak = m.rssKb;
      return peak;
    },
    async stop() {
      stopping = true;
      // SIGTERM drains; a worker still draining after 20 s is killed.
      await Promise.all(workers.map(async (w) => {
        const timer = setTimeout(() => w.child.kill('SIGKILL'), 20_000);
        await w.kill('SIGTERM').catch(() => undefined);
        clearTimeout(timer);
      }));
      for (const s of samplers) s.stop();
    },
  };
}

// ---- the webhook receiver process -------------------------------------------------------------------

export interface ReceiverProcess {
  url: string;
  child: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

export async function startReceiverProcess(options: { temporalAddress: string; secret: string; logFile: string }): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, ['--conditions=webdata-source', '--import', 'tsx', join('test', 'scale', 'receiver-process.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TEMPORAL_ADDRESS: options.temporalAddress, WEBDATA_WEBHOOK_SECRET: options.secret, SCALE_RECEIVER_LOG: options.logFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`receiver: not ready after 180 s: ${out}`)), 180_000);
    const onData = (d: Buffer) => {
      out = (out + d.toString()).slice(-4000);
      const m = /receiver: listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`receiver exited (${code}) before it was ready: ${out}`));
    });
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url,
    child,
    logFile: options.logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Last resort for a test process that ends without its after(): nothing it started stays. */
export function stopOnExit(children: () => Array<ChildProcess | undefined>): void {
  process.once('exit', () => {
    for (const c of children()) if (c && c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
}
