// Crashes and restarts parts of the open-source server that scripts/test-compat.mjs started, with
// the fixture's own scripts: kill.sh (SIGKILL to each part and every process below it, as a crash
// or a container restart does) and `FC_ONLY="<parts>" start.sh` (the same parts again, on the same
// ports). Where everything is comes from the environment test-compat.mjs passes on:
//   WEBDATA_OSS_FIXTURE  the fixture folder (kill.sh, start.sh)
//   WEBDATA_OSS_BUILD    the server's build folder
//   WEBDATA_OSS_RUN      the run folder (<part>.pid and <part>.log of each running part)
//   FC_PORT, FC_WORKER_PORT, FC_PW_PORT, FC_REDIS_PORT   the ports it was started on
import { spawn } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type OssPart = 'redis' | 'playwright' | 'api' | 'worker';

export interface OssServer {
  fixture: string;
  build: string;
  run: string;
  ports: { FC_PORT: string; FC_WORKER_PORT: string; FC_PW_PORT: string; FC_REDIS_PORT: string };
  /** The API's URL, http://127.0.0.1:<FC_PORT>. */
  url: string;
}

const PORT_NAMES = ['FC_PORT', 'FC_WORKER_PORT', 'FC_PW_PORT', 'FC_REDIS_PORT'] as const;

/** The server to restart, from the environment; a message naming what is missing when it is not set. */
export function ossServerFromEnv(env: NodeJS.ProcessEnv = process.env): OssServer | string {
  const missing = ['WEBDATA_OSS_FIXTURE', 'WEBDATA_OSS_BUILD', 'WEBDATA_OSS_RUN', ...PORT_NAMES].filter((name) => !env[name]);
  if (missing.length > 0) return `${missing.join(', ')} not set: run through \`npm run test:compat\` (it starts the server and sets them)`;
  const fixture = env.WEBDATA_OSS_FIXTURE as string;
  for (const script of ['kill.sh', 'start.sh']) {
    if (!existsSync(join(fixture, script))) return `WEBDATA_OSS_FIXTURE=${fixture} has no ${script}`;
  }
  const ports = Object.fromEntries(PORT_NAMES.map((name) => [name, env[name] as string])) as OssServer['ports'];
  return { fixture, build: env.WEBDATA_OSS_BUILD as string, run: env.WEBDATA_OSS_RUN as string, ports, url: `http://127.0.0.1:${ports.FC_PORT}` };
}

function script(server: OssServer, name: string, args: string[], timeoutMs: number, extraEnv: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    // A process group of its own: the parts start.sh leaves running must not get the signals
    // meant for the test (a Ctrl-C, a `timeout` around it); stop.sh stops them by PID.
    const child = spawn('bash', [join(server.fixture, name), ...args], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...server.ports, ...extraEnv },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      child.kill('SIGKILL'); // the script only: the parts it started are left to stop.sh
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${name} did not run: ${err.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && !late) resolve(output.trim());
      else reject(new Error(`${name} ${args.join(' ')} failed (${late ? `no end within ${timeoutMs} ms` : `exit ${code}`}): ${output.trim()}`));
    });
  });
}

/** SIGKILL to each part and every process below it (kill.sh). Resolves with kill.sh's lines. */
export async function killParts(server: OssServer, parts: OssPart[], timeoutMs = 30_000): Promise<string> {
  return script(server, 'kill.sh', [server.run, ...parts], timeoutMs);
}

/**
 * Starts the parts again on the same ports (`FC_ONLY` start.sh), then waits until the API
 * answers HTTP when the API is among them. A part that does not come back is an error naming
 * its log file.
 */
export async function startParts(server: OssServer, parts: OssPart[], timeoutMs = 240_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  // start.sh writes each part's log afresh: keep the one of the process that was killed.
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (const part of parts) {
    const log = join(server.run, `${part}.log`);
    if (existsSync(log)) renameSync(log, join(server.run, `${part}.before-${stamp}.log`));
  }
  let lines: string;
  try {
    lines = await script(server, 'start.sh', [server.build, server.run], timeoutMs, { FC_ONLY: parts.join(' ') });
  } catch (err) {
    // start.sh waits 60 s per port: on a busy machine the API may take longer. Its processes keep
    // running: when each part was started (its pid file written), wait for the API below.
    const missing = parts.filter((p) => !existsSync(join(server.run, `${p}.pid`)));
    if (missing.length > 0 || !parts.includes('api')) {
      throw new Error(`the open-source server's ${parts.join(', ')} did not start again: ${(err as Error).message}; see ${parts.map((p) => join(server.run, `${p}.log`)).join(', ')}`);
    }
    lines = `start.sh stopped waiting: ${(err as Error).message}`;
  }
  if (parts.includes('api')) await waitForApi(server, Math.max(1_000, deadline - Date.now()));
  return lines;
}

/** Until the API answers an HTTP request (any status: an answer is what says it is up). */
export async function waitForApi(server: OssServer, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const answer = await fetch(`${server.url}/v2/crawl/active`, { signal: AbortSignal.timeout(5_000) });
      await answer.arrayBuffer();
      return;
    } catch (err) {
      last = String((err as Error).cause ?? err);
    }
    if (Date.now() > deadline) {
      throw new Error(`the open-source server's API did not answer on ${server.url} within ${timeoutMs} ms (${last}); see ${join(server.run, 'api.log')} and ${join(server.run, 'worker.log')}`);
    }
    await sleep(500);
  }
}
