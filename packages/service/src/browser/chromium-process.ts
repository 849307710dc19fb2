// A Chromium process of our own with a DevTools endpoint on an ephemeral port: one per
// browser session, so sessions are isolated and destroying one kills exactly its process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS } from './chromium.js';
import { outputTail } from '../core/output-tail.js';

export interface ChromiumProcess {
  /** Browser-level DevTools WebSocket URL (ws://127.0.0.1:PORT/devtools/browser/ID). */
  wsEndpoint: string;
  port: number;
  pid: number;
  userDataDir: string;
  /** Resolves when the process has exited (for any reason). */
  exited: Promise<void>;
  /** Kills the process (SIGKILL after a grace period) and removes its user-data-dir. */
  kill(): Promise<void>;
}

export interface LaunchOptions {
  chromiumPath: string;
  extraArgs?: string[];
  /** ms to wait for the DevTools endpoint. */
  startTimeoutMs?: number;
}

export async function launchChromiumProcess(opts: LaunchOptions): Promise<ChromiumProcess> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'webdata-chromium-'));
  const args = [
    ...CHROMIUM_ARGS,
    `--user-data-dir=${userDataDir}`,
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    '--window-size=1280,800',
    ...(opts.extraArgs ?? []),
    'about:blank',
  ];
  // Chromium's own temporary files (org.chromium.Chromium.*) go inside the user-data-dir, so
  // that removing it after a kill leaves nothing behind in the system's temporary folder.
  const tmp = join(userDataDir, 'tmp');
  await mkdir(tmp);
  const child = spawn(opts.chromiumPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  try {
    // Generous: a busy machine can take tens of seconds to start Chromium; one that never starts fails here.
    const wsEndpoint = await waitForEndpoint(child, opts.startTimeoutMs ?? 60_000);
    const port = Number(new URL(wsEndpoint).port);
    let killing: Promise<void> | undefined;
    return {
      wsEndpoint,
      port,
      pid: child.pid ?? -1,
      userDataDir,
      exited,
      kill() {
        killing ??= terminate(child, exited).then(() => removeDir(userDataDir));
        return killing;
      },
    };
  } catch (err) {
    await terminate(child, exited);
    await removeDir(userDataDir);
    throw err;
  }
}

function waitForEndpoint(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => done(new Error(`Chromium did not open DevTools within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(buffered);
      if (match) done(undefined, match[1]);
      else if (buffered.length > 64_000) buffered = buffered.slice(-4_000);
    };
    const onExit = (code: number | null) => done(new Error(`Chromium exited (${code}) before DevTools was ready: ${outputTail(buffered)}`));
    function done(err?: Error, endpoint?: string) {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      // Keep draining stderr so Chromium never blocks on a full pipe.
      child.stderr?.resume();
      if (err) reject(err);
      else resolve(endpoint!);
    }
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
  // A helper process that outlives the browser may still hold the stderr pipe: let it go, so
  // that it cannot keep this process alive.
  child.stderr?.destroy();
}

/** Chromium's helper processes may still write for a moment after the browser exits. */
async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);
}
