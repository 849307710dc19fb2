// The open-source server of the same API (../shared/firecrawl-oss/), started on free loopback
// ports for a benchmark when its build is cached (never built here: that takes 7-13 minutes).
// Stopped by its own stop.sh, which ends only what its start.sh started.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export interface OssServer {
  url: string;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

/** Where the fixture and a finished build are, or why the server cannot be started. */
export function ossBuild(): { fixture: string; build: string } | { missing: string } {
  const candidates = [process.env.FIRECRAWL_OSS_DIR, join(ROOT, '..', 'shared', 'firecrawl-oss'), '/work/shared/firecrawl-oss'].filter((d): d is string => !!d);
  const fixture = candidates.find((d) => existsSync(join(d, 'start.sh')));
  if (!fixture) return { missing: `no fixture in ${candidates.join(', ')}` };
  const build = process.env.FIRECRAWL_OSS_BUILD ?? join(homedir(), '.cache', 'webdata-temporal', 'firecrawl-oss-0fac8fb');
  if (!existsSync(join(build, '.built'))) return { missing: `no finished build in ${build} (../shared/firecrawl-oss/build.sh builds it)` };
  return { fixture, build };
}

export async function startOssServer(where: { fixture: string; build: string }): Promise<OssServer> {
  const run = mkdtempSync(join(tmpdir(), 'webdata-bench-oss-'));
  const ports = { FC_PORT: await freePort(), FC_WORKER_PORT: await freePort(), FC_PW_PORT: await freePort(), FC_REDIS_PORT: await freePort() };
  const env = { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
  const stop = async () => {
    try {
      execFileSync('bash', [join(where.fixture, 'stop.sh'), run], { stdio: 'ignore' });
    } finally {
      rmSync(run, { recursive: true, force: true });
    }
  };
  try {
    execFileSync('bash', [join(where.fixture, 'start.sh'), where.build, run], { stdio: 'ignore', env });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `http://127.0.0.1:${ports.FC_PORT}`, close: stop };
}
