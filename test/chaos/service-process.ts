// The local service as a real child process on a fixed port (`packages/service/src/bin.ts`), so
// a fault test can SIGKILL it and start it again as a crash and a supervisor do: jobs, bills
// and caches are gone, the port answers again.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TeamConfig } from '../../packages/service/src/core/teams.js';
import { freePort, waitFor } from './harness.js';

export interface ServiceProcess {
  url: string;
  port: number;
  /** Starts (again) on the same port; resolves once it answers HTTP. */
  start(): Promise<void>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  running(): boolean;
  /** Times the process was started. */
  starts(): number;
  output(): string;
}

export async function createServiceProcess(options: { dir: string; teams: TeamConfig[]; probeKey: string }): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = join(options.dir, `service-${port}.json`);
  writeFileSync(config, JSON.stringify({ teams: options.teams }));
  let child: ChildProcess | undefined;
  let out = '';
  let started = 0;

  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  async function start(): Promise<void> {
    if (alive()) return;
    const proc = spawn(process.execPath, ['--conditions=webdata-source', '--import', 'tsx', 'packages/service/src/bin.ts', '--port', String(port), '--no-site', '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...(process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES ? { WEBDATA_ALLOW_PRIVATE_ADDRESSES: process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES } : {}) },
    });
    child = proc;
    started += 1;
    const keep = (d: Buffer) => { out = (out + d.toString()).slice(-8000); };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    await waitFor(async () => {
      if (proc.exitCode !== null) throw new Error(`the service exited (${proc.exitCode}): ${out}`);
      try {
        const res = await fetch(`${url}/v2/team/credit-usage`, { headers: { authorization: `Bearer ${options.probeKey}` } });
        await res.arrayBuffer();
        return res.ok;
      } catch {
        return false;
      }
    }, 60_000, `the service on ${url}`, 100);
  }

  return {
    url,
    port,
    start,
    async kill() {
      const proc = child;
      if (!proc || !alive()) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
    },
    running: alive,
    starts: () => started,
    output: () => out,
  };
}
