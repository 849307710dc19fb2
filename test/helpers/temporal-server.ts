// A production-shaped Temporal for tests: the Temporal server (not the dev server) on its own
// PostgreSQL, with SQL visibility and the package's search attributes, started by
// scripts/temporal-server.sh in a temporary run folder. Everything it started stops when the
// test calls stop(), when this process exits, and (through the script's watchdog) when this
// process is killed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'temporal-server.sh');

export interface TemporalServer {
  /** Frontend gRPC address, host:port on 127.0.0.1. */
  address: string;
  namespace: string;
  /** Run folder: config, server.log, PostgreSQL data (pg/). */
  runDir: string;
  /** Stops the server and its PostgreSQL, then removes the run folder (kept with WEBDATA_KEEP_TEMPORAL_RUN=1). */
  stop(): Promise<void>;
  /** Stops and starts the server process only (same ports, same database); resolves when it serves again. */
  restartServer(): Promise<{ stopMs: number; startMs: number }>;
}

export interface StartTemporalServerOptions {
  /** An existing PostgreSQL (postgres://user[:password]@host:port) instead of one in the run folder. */
  postgresUrl?: string;
  /** Progress lines of the script; default: kept, printed only when a step fails. */
  log?: (line: string) => void;
}

function script(args: string[], log?: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, ...args], {
      cwd: ROOT,
      env: { ...process.env, WEBDATA_TEMPORAL_WATCH_PID: String(process.pid) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      stderr = (stderr + text).slice(-8000);
      if (log) for (const line of text.split('\n')) if (line) log(line);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(stdout.trim());
      else reject(new Error(`scripts/temporal-server.sh ${args.join(' ')} exited with ${code}:\n${stderr.trim()}`));
    });
  });
}

export async function startTemporalServer(options: StartTemporalServerOptions = {}): Promise<TemporalServer> {
  const runDir = mkdtempSync(join(tmpdir(), 'webdata-temporal-server-'));
  let stopped = false;
  // Last resort when the test process ends without calling stop() (a failed before(), an exception).
  const onExit = () => {
    if (stopped) return;
    stopped = true;
    spawnSync('bash', [SCRIPT, 'stop', runDir], { stdio: 'ignore' });
  };
  process.once('exit', onExit);
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    await script(['stop', runDir], options.log);
    if (process.env.WEBDATA_KEEP_TEMPORAL_RUN !== '1') rmSync(runDir, { recursive: true, force: true });
  };
  let address: string;
  try {
    const out = await script(['start', runDir, ...(options.postgresUrl ? [options.postgresUrl] : [])], options.log);
    address = out.split('\n').pop() ?? '';
    if (!/^127\.0\.0\.1:\d+$/.test(address)) throw new Error(`scripts/temporal-server.sh start printed no address: ${out}`);
  } catch (err) {
    // The script stops what it started when it fails; keep the folder for its logs.
    stopped = true;
    process.removeListener('exit', onExit);
    throw new Error(`${(err as Error).message}\n(run folder kept: ${runDir})`);
  }
  return {
    address,
    namespace: process.env.WEBDATA_TEMPORAL_NAMESPACE ?? 'default',
    runDir,
    stop,
    async restartServer() {
      const t0 = Date.now();
      let stopAt: number | undefined;
      // `restart-server` = stop (SIGTERM, wait for exit) then start and wait for the frontend.
      const out = await script(['restart-server', runDir], (line) => {
        options.log?.(line);
        if (/starting the Temporal server/.test(line) && !stopAt) stopAt = Date.now();
      });
      const end = Date.now();
      if (out.split('\n').pop() !== address) throw new Error(`the server came back on another address: ${out}`);
      const stopMs = (stopAt ?? end) - t0;
      return { stopMs, startMs: end - t0 - stopMs };
    },
  };
}
