#!/usr/bin/env node
// `npm run test:compat`: the package against the open-source server of the same API.
// Builds it once with ../shared/firecrawl-oss/build.sh into a cache folder outside the clone
// (reused when present), starts it on free loopback ports, runs test/compat/*.compat.ts against
// it, and stops everything it started, also on failure or Ctrl-C (the server's logs are kept
// when a test failed). The tests: test/compat/oss.compat.ts (the package's stages against the
// server) and test/compat/crawl-differential.compat.ts (22 crawl option combinations crawled by
// both servers on a generated site: about 190 pages, each rendered by that server in Chromium,
// 2 to 5 minutes on 2 cores depending on what else runs), then test/compat/restart.compat.ts
// alone (the server's API, queue worker and Redis killed and started again under running pipelines).
// Before the server starts, test/compat/main-content-fidelity.compat.ts compares the local
// service's markdown with the server's on 271 pages (its answers cached outside the clone; when
// they are not, that test starts a server of its own with the Go converter).
//   FIRECRAWL_OSS_DIR     the fixture folder (default ../shared/firecrawl-oss next to the repo)
//   FIRECRAWL_OSS_BUILD   the build folder (default ~/.cache/webdata-temporal/firecrawl-oss-0fac8fb)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const candidates = [process.env.FIRECRAWL_OSS_DIR, join(ROOT, '..', 'shared', 'firecrawl-oss'), '/work/shared/firecrawl-oss'].filter(Boolean);
const fixture = candidates.find((d) => existsSync(join(d, 'build.sh')));
if (!fixture) {
  console.error(`test:compat: the open-source server fixture is not here (looked in ${candidates.join(', ')}); set FIRECRAWL_OSS_DIR`);
  process.exit(1);
}
const build = process.env.FIRECRAWL_OSS_BUILD ?? join(homedir(), '.cache', 'webdata-temporal', 'firecrawl-oss-0fac8fb');
const run = mkdtempSync(join(tmpdir(), 'webdata-oss-'));

function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => ok(port)); });
  });
}

const START_WAIT_S = 300;
async function waitForPort(port, name) {
  for (const deadline = Date.now() + START_WAIT_S * 1000; Date.now() < deadline; await sleep(500)) {
    const open = await new Promise((ok) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); ok(true); });
      socket.once('error', () => ok(false));
    });
    if (open) return;
  }
  throw new Error(`the open-source server's ${name} did not open port ${port} within ${START_WAIT_S} s more; see ${join(run, `${name}.log`)}`);
}

let started = false;
function stop(keepLogs = false) {
  if (!started) return;
  started = false;
  try {
    execFileSync('bash', [join(fixture, 'stop.sh'), run], { stdio: 'inherit' });
  } catch (err) {
    console.error(`test:compat: stop.sh failed: ${err.message}`);
  }
  if (keepLogs) console.error(`test:compat: the server's logs are in ${run} (api.log, worker.log, playwright.log)`);
  else rmSync(run, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { stop(); process.exit(130); });

const t0 = Date.now();
const secs = (from) => `${((Date.now() - from) / 1000).toFixed(0)} s`;
execFileSync('bash', [join(fixture, 'build.sh'), build], { stdio: 'inherit' });
console.log(`test:compat: server build ready in ${secs(t0)} (${build})`);

const runTests = (files, env) => new Promise((ok) => spawn(process.execPath, [
  '--conditions=webdata-source', '--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files,
], { cwd: ROOT, stdio: 'inherit', env }).on('exit', (c, signal) => ok(c ?? (signal ? 1 : 0))));
// No server of ours runs yet: the fidelity check needs the server with the Go converter, its own.
const fidelityEnv = { ...process.env, FIRECRAWL_OSS_DIR: fixture, FIRECRAWL_OSS_BUILD: build };
delete fidelityEnv.WEBDATA_OSS_URL;
const fidelityCode = await runTests(['test/compat/main-content-fidelity.compat.ts'], fidelityEnv);

const ports = { FC_PORT: await freePort(), FC_WORKER_PORT: await freePort(), FC_PW_PORT: await freePort(), FC_REDIS_PORT: await freePort() };
const env = { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
let code = 1;
try {
  const t1 = Date.now();
  started = true;
  try {
    execFileSync('bash', [join(fixture, 'start.sh'), build, run], { stdio: 'inherit', env });
  } catch (err) {
    // start.sh waits 60 s per port; on a busy machine the API's first start takes longer. Its
    // processes keep running: once the API and worker were started, wait longer for their ports.
    if (!existsSync(join(run, 'api.pid')) || !existsSync(join(run, 'worker.pid'))) throw err;
    console.log(`test:compat: start.sh stopped waiting after ${secs(t1)}; waiting up to ${START_WAIT_S} s more for the API and worker ports`);
    await waitForPort(ports.FC_PORT, 'api');
    await waitForPort(ports.FC_WORKER_PORT, 'worker');
  }
  console.log(`test:compat: server up in ${secs(t1)} on http://127.0.0.1:${ports.FC_PORT}`);
  // The restart test gets what it needs to kill and start the server's parts again (same ports).
  const testEnv = {
    ...env, WEBDATA_OSS_URL: `http://127.0.0.1:${ports.FC_PORT}`,
    WEBDATA_OSS_FIXTURE: fixture, WEBDATA_OSS_BUILD: build, WEBDATA_OSS_RUN: run,
  };
  const runFiles = (files) => runTests(files, testEnv);
  code = await runFiles(['test/compat/oss.compat.ts', 'test/compat/crawl-differential.compat.ts']);
  // Last, in a process of its own: it kills the server's API, worker and Redis and starts them again.
  // Mostly waits (the restarts, the stall time): .ci/run starts the package checks on this line.
  console.log('test:compat: restart scenarios start');
  const restartCode = await runFiles(['test/compat/restart.compat.ts']);
  code = code || restartCode || fidelityCode;
} finally {
  stop(code !== 0);
}
console.log(`test:compat: ${code === 0 ? 'passed' : 'FAILED'} in ${secs(t0)}`);
process.exit(code);
