#!/usr/bin/env node
// `npm run test:package`: the packages as a user gets them. Builds, packs every published
// package, installs the tarballs (not workspace links) into fresh projects outside the repo,
// and there checks that
//   1. plain `node` imports every entry point (and webdata-temporal/api loads no @temporalio/worker);
//   2. a TypeScript consumer with strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess
//      and module nodenext type-checks against the published .d.ts;
//   3. a consumer's own Worker, built with webDataPlugin, runs one pipeline to `completed`
//      against webdata-service started from its installed bin;
//      and runs interact code in node and python there;
//   4. examples/backend, copied out and installed from the tarballs, type-checks, passes its own
//      tests, and runs a crawl over HTTP (one run for a request posted twice) with its worker;
//   5. no tarball holds tests, benchmarks or build info.
// Prints tarball sizes and file counts and the install sizes for a client-only user, a backend
// that only starts runs, and a worker.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
// webdata-temporal is the repository root; the packages it depends on and the local service
// live under packages/.
const PACKAGES = ['packages/contract', 'packages/client', 'packages/storage', '.', 'packages/service'];
const FORBIDDEN = /(^|\/)(test|tests|bench|__tests__|fixtures)\/|\.test\.|\.tsbuildinfo$|(^|\/)tsconfig[^/]*\.json$/;
const keep = process.env.PACKAGE_TEST_KEEP === '1';
const work = mkdtempSync(join(tmpdir(), 'webdata-package-'));
const children = new Set();
const failures = [];
let step = 0;

const log = (line) => console.log(line);
function check(ok, what) {
  log(`${ok ? 'ok' : 'FAIL'} ${++step} - ${what}`);
  if (!ok) failures.push(what);
}
function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
}
function npm(args, cwd) {
  return run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd });
}
function duBytes(dir) {
  return Number(run('du', ['-sb', dir]).split('\t')[0]);
}
function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => ok(port)); });
  });
}
const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;

function cleanup() {
  for (const child of children) {
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  if (!keep) rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}
process.on('SIGINT', () => { cleanup(); process.exit(130); });
process.on('SIGTERM', () => { cleanup(); process.exit(143); });

/** Starts a long-running child in its own process group; resolves with the first stdout match. */
function startChild(name, cmd, args, pattern, opts = {}, startTimeoutMs = 120_000) {
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  children.add(child);
  let out = '';
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${startTimeoutMs / 1000} s:\n${out}`)), startTimeoutMs);
    const onData = (chunk) => {
      out += chunk.toString();
      const m = pattern.exec(out);
      if (m) { clearTimeout(timer); resolvePromise({ child, match: m }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c) => { out += c.toString(); });
    child.on('exit', (code) => { clearTimeout(timer); children.delete(child); reject(new Error(`${name} exited (${code}):\n${out}`)); });
  });
}

/**
 * examples/backend as a user gets it: copied out of the repo and installed from the tarballs (its
 * other dependencies from the registry). There it type-checks with its own tsconfig, its own
 * tests pass (the time-skipping test server from the offline cache, as its README says), and its
 * worker and HTTP starter run a crawl: the same request posted twice starts one, and the
 * service's webhooks reach its receiver.
 */
async function exampleBackend({ temporalAddress, serviceUrl, siteUrl, apiKey }, tgzOf) {
  const dir = join(work, 'example-backend');
  cpSync(join(ROOT, 'examples', 'backend'), dir, { recursive: true, filter: (from) => !/[\\/](node_modules|\.data|store|summaries)$/.test(from) });
  npm(['install', ...tgzOf('webdata-contract', 'webdata-client', 'webdata-storage', 'webdata-temporal')], dir);
  const script = (name, env = process.env) => {
    try {
      return { code: 0, out: run('npm', ['run', '--silent', name], { cwd: dir, env }) };
    } catch (err) {
      return { code: err.status, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
    }
  };
  const typecheck = script('typecheck');
  check(typecheck.code === 0, `example backend: type-checks with its own tsconfig against the installed .d.ts (exit ${typecheck.code})${typecheck.code ? `\n${typecheck.out}` : ''}`);
  const testServer = run('bash', [join(ROOT, 'scripts', 'ensure-test-server.sh')]).trim();
  const tests = script('test', { ...process.env, TEMPORAL_TEST_SERVER_PATH: testServer });
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tests.out)?.[1] ?? 0);
  check(tests.code === 0 && count('pass') > 0 && count('fail') === 0,
    `example backend: its own tests pass on the time-skipping test server (${count('pass')} passed, ${count('fail')} failed, exit ${tests.code})${tests.code ? `\n${tests.out.slice(-4000)}` : ''}`);

  const port = await freePort();
  const env = {
    ...process.env, TEMPORAL_ADDRESS: temporalAddress, WEBDATA_API_URL: serviceUrl, WEBDATA_API_KEY: apiKey,
    WEBDATA_STORE: './store', EXAMPLE_SUMMARIES: './summaries', PORT: String(port),
    // The runs crawl the demo site and send their webhooks to the example's receiver, both on
    // 127.0.0.1: those two, named.
    WEBDATA_ALLOW_PRIVATE_ADDRESSES: `${new URL(siteUrl).host},127.0.0.1:${port}`,
  };
  await startChild('example worker', process.execPath, ['--import', 'tsx', 'src/worker.ts'], /example worker: task queue/, { cwd: dir, env }, 300_000); // bundling the workflows is slow on a busy machine
  const { child: server, match } = await startChild('example server', process.execPath, ['--import', 'tsx', 'src/server.ts'], /example server: (http:\/\/\S+)/, { cwd: dir, env });
  let serverOut = '';
  server.stdout.on('data', (chunk) => { serverOut += chunk.toString(); });
  const base = match[1];
  const call = async (method, path, body) => {
    const res = await globalThis.fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };

  const refused = await call('POST', '/crawls', { customer: 'acme', url: 'not a url' });
  check(refused.status === 400 && /^invalid pipeline input: url: /.test(refused.body.error ?? ''), `example backend: POST /crawls with a bad url answers 400 naming the field (${refused.status} ${refused.body.error})`);
  const request = { customer: 'acme', url: `${siteUrl}/`, include: ['^/docs'], limit: 10 };
  const started = await call('POST', '/crawls', request);
  const again = await call('POST', '/crawls', request);
  check(started.status === 201 && started.body.created === true && again.status === 200 && again.body.id === started.body.id && again.body.runId === started.body.runId,
    `example backend: the same POST /crawls twice starts one crawl (${started.status} ${JSON.stringify(started.body)}, then ${again.status} ${JSON.stringify(again.body)})`);
  // Polls until the crawl has ended; the deadline is generous, the run takes seconds.
  let crawl = { status: 0, body: {} };
  let polls = 0;
  const t = Date.now();
  for (const deadline = Date.now() + 300_000; Date.now() < deadline; polls++) {
    crawl = await call('GET', `/crawls/${encodeURIComponent(started.body.id)}`);
    if (crawl.status === 200 && crawl.body.status !== 'RUNNING') break;
    await sleep(1000);
  }
  const summary = crawl.body.summary ?? {};
  check(crawl.status === 200 && crawl.body.status === 'COMPLETED' && summary.status === 'completed' && summary.documents > 0,
    `example backend: the crawl's workflow ran the pipeline as its child to completed (${polls + 1} polls, ${((Date.now() - t) / 1000).toFixed(1)} s: ${JSON.stringify(crawl.body)})`);
  const file = join(dir, 'summaries', 'acme', `${started.body.id}.json`);
  const saved = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  check(saved?.documents === summary.documents, `example backend: its activity recorded the customer's summary (${file.slice(dir.length + 1)}: ${saved ? `${saved.documents} documents` : 'missing'})`);
  const signalled = serverOut.split('\n').filter((l) => l.includes(`signalled ${started.body.id}-pipeline`));
  check(signalled.some((l) => /webhook crawl\.completed /.test(l)), `example backend: the service's webhooks reached its receiver and signalled the pipeline (${signalled.length} deliveries)`);
  const unknown = await call('GET', '/crawls/no-such-crawl');
  check(unknown.status === 404, `example backend: GET /crawls/:id of an unknown crawl answers 404 (${unknown.status})`);
}

async function main() {
  const t0 = Date.now();
  run('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: ROOT });
  log(`build: ${((Date.now() - t0) / 1000).toFixed(1)} s (tsc -b, incremental)`);

  // ---- pack --------------------------------------------------------------------------------
  const tarDir = join(work, 'tarballs');
  mkdirSync(tarDir);
  const tarballs = {};
  log('\n| package | tarball | unpacked | files |\n|---|---:|---:|---:|');
  for (const p of PACKAGES) {
    const [info] = JSON.parse(npm(['pack', '--json', '--pack-destination', tarDir], join(ROOT, p)));
    tarballs[info.name] = join(tarDir, info.filename);
    log(`| ${info.name} | ${kib(info.size)} | ${kib(info.unpackedSize)} | ${info.entryCount} |`);
    const bad = info.files.map((f) => f.path).filter((f) => FORBIDDEN.test(f));
    check(bad.length === 0, `${info.name}: no tests, benchmarks, fixtures or build info in the tarball${bad.length ? ` (found ${bad.slice(0, 5).join(', ')})` : ''}`);
    const hasJs = info.files.some((f) => f.path.startsWith('lib/') && f.path.endsWith('.js'));
    const hasDts = info.files.some((f) => f.path.startsWith('lib/') && f.path.endsWith('.d.ts'));
    const hasMaps = info.files.some((f) => f.path.endsWith('.js.map'));
    check(hasJs && hasDts && hasMaps, `${info.name}: compiled .js, .d.ts and source maps`);
    const manifest = JSON.parse(readFileSync(join(ROOT, p, 'package.json'), 'utf8'));
    const runtime = Object.keys({ ...manifest.dependencies });
    check(!runtime.some((d) => ['tsx', 'typescript', '@temporalio/testing'].includes(d) || d.startsWith('@temporalio/')),
      `${info.name}: no TypeScript toolchain, @temporalio/testing or Temporal packages among its dependencies (Temporal is a peer)`);
  }
  const tgz = (...names) => names.map((n) => tarballs[n]);

  // ---- install sizes ---------------------------------------------------------------------------
  const project = (name) => {
    const dir = join(work, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module', version: '1.0.0' }, null, 2));
    return dir;
  };
  const clientOnly = project('client-only');
  npm(['install', ...tgz('webdata-contract', 'webdata-client')], clientOnly);
  const clientBytes = duBytes(join(clientOnly, 'node_modules'));

  // A backend that only starts runs: webdata-temporal and @temporalio/client, no worker-side peers.
  const startOnly = project('start-only');
  npm(['install', ...tgz('webdata-contract', 'webdata-client', 'webdata-storage', 'webdata-temporal'), '@temporalio/client@^1.24.0'], startOnly);
  const startOnlyBytes = duBytes(join(startOnly, 'node_modules'));
  const absent = ['worker', 'workflow', 'activity', 'envconfig', 'core-bridge'].filter((p) => !existsSync(join(startOnly, 'node_modules', '@temporalio', p)));
  check(absent.length === 5, `a start-runs-only install has no @temporalio/worker, workflow, activity, envconfig or core-bridge (absent: ${absent.join(', ')})`);
  writeFileSync(join(startOnly, 'start.mjs'), `
const m = await import('webdata-temporal');
console.log(JSON.stringify({ startPipeline: typeof m.startPipeline, schedulePipeline: typeof m.schedulePipeline, parseDocumentsRun: typeof m.startParseDocuments }));
`);
  const startOnlyImport = JSON.parse(run('node', ['start.mjs'], { cwd: startOnly }));
  check(startOnlyImport.startPipeline === 'function' && startOnlyImport.schedulePipeline === 'function',
    `a start-runs-only install imports webdata-temporal (startPipeline ${startOnlyImport.startPipeline}, schedulePipeline ${startOnlyImport.schedulePipeline})`);

  const app = project('consumer');
  // A worker installs the worker-side peers itself (they are optional peers of webdata-temporal).
  const temporalPeer = (name) => `@temporalio/${name}@${JSON.parse(readFileSync(join(ROOT, 'node_modules', '@temporalio', name, 'package.json'), 'utf8')).version}`;
  const workerPeers = ['client', 'worker', 'workflow', 'activity', 'envconfig'].map(temporalPeer);
  npm(['install', ...tgz('webdata-contract', 'webdata-client', 'webdata-storage', 'webdata-temporal'), ...workerPeers], app);
  const workerBytes = duBytes(join(app, 'node_modules'));
  check(!existsSync(join(app, 'node_modules', '@temporalio', 'testing')), 'a worker install has no @temporalio/testing');
  check(!existsSync(join(app, 'node_modules', 'tsx')) && !existsSync(join(app, 'node_modules', 'typescript')), 'a worker install has no tsx or typescript');
  log(`install size: client only (webdata-client) ${mib(clientBytes)}; start runs only (webdata-temporal + @temporalio/client) ${mib(startOnlyBytes)}; worker (webdata-temporal + @temporalio/client, worker, workflow, activity, envconfig) ${mib(workerBytes)}`);
  // The rest of the checks also need the local service, pg and the Node types for the TS consumer.
  npm(['install', ...tgz('webdata-service'), '@types/node@20'], app);

  // ---- 1. plain node imports every entry point --------------------------------------------------
  const entries = [
    'webdata-temporal', 'webdata-temporal/api', 'webdata-temporal/activities', 'webdata-temporal/workflows',
    'webdata-temporal/worker', 'webdata-temporal/client', 'webdata-temporal/storage', 'webdata-temporal/webhooks',
    'webdata-temporal/plugin', 'webdata-client', 'webdata-contract', 'webdata-storage', 'webdata-service',
  ];
  writeFileSync(join(app, 'imports.mjs'), `
const entries = ${JSON.stringify(entries)};
const out = {};
for (const e of entries) out[e] = Object.keys(await import(e)).length;
console.log(JSON.stringify(out));
`);
  const imported = JSON.parse(run('node', ['imports.mjs'], { cwd: app }));
  for (const e of entries) check((imported[e] ?? 0) > 0, `node imports ${e} (${imported[e] ?? 0} exports)`);

  writeFileSync(join(app, 'api-only.mjs'), `
import { createRequire } from 'node:module';
const api = await import('webdata-temporal/api');
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@temporalio'));
console.log(JSON.stringify({ client: typeof api.WebDataClient, temporal: loaded.length }));
`);
  const apiOnly = JSON.parse(run('node', ['api-only.mjs'], { cwd: app }));
  check(apiOnly.client === 'function' && apiOnly.temporal === 0, `importing webdata-temporal/api loads no @temporalio package (${apiOnly.temporal} loaded)`);

  const workflowsPath = run('node', ['--input-type=module', '-e', "console.log(import.meta.resolve('webdata-temporal/workflows'))"], { cwd: app }).trim();
  check(workflowsPath.includes('/node_modules/webdata-temporal/lib/workflows/index.js'), `webdata-temporal/workflows resolves to compiled JS in node_modules (${workflowsPath})`);

  // The bins of the installed packages, with no @temporalio/testing and no TypeScript there.
  const bin = (name, args, env = {}) => {
    try {
      return { code: 0, out: run(join(app, 'node_modules', '.bin', name), args, { cwd: app, env: { ...process.env, ...env } }) };
    } catch (err) {
      return { code: err.status, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
    }
  };
  const help = bin('webdata', ['--help']);
  check(help.code === 0 && /webdata run/.test(help.out), 'the installed `webdata` bin prints its help');
  const noEnv = bin('webdata', ['worker'], { WEBDATA_API_URL: '', WEBDATA_API_KEY: '', WEBDATA_STORE: '' });
  check(noEnv.code === 2 && /WEBDATA_API_URL/.test(noEnv.out) && !/\n\s+at /.test(noEnv.out),
    `\`webdata worker\` without settings names the missing variable and exits 2 (exit ${noEnv.code})`);
  const svcHelp = bin('webdata-service', ['--help']);
  check(svcHelp.code === 0 && /--port/.test(svcHelp.out), 'the installed `webdata-service` bin prints its help');

  // ---- 2. a strict TypeScript consumer ------------------------------------------------------
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true,
      module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: ['node'],
    },
    include: ['consumer.ts'],
  }, null, 2));
  writeFileSync(join(app, 'consumer.ts'), `
import { Client } from '@temporalio/client';
import { Worker, NativeConnection } from '@temporalio/worker';
import { startPipeline, type PipelineInput, type PipelineResult, STAGE, WebDataApiError } from 'webdata-temporal';
import { WebDataClient, type CrawlRequest, type JobStatusResponse, crawlRequestSchema } from 'webdata-temporal/api';
import { createActivities, type WebDataActivities } from 'webdata-temporal/activities';
import { createWebDataWorker, webDataPlugin } from 'webdata-temporal/worker';
import { createStore, type DocumentStore } from 'webdata-temporal/storage';
import { startWebhookServer } from 'webdata-temporal/webhooks';
import { webDataPipeline } from 'webdata-temporal/workflows';
import { startLocalService } from 'webdata-service';

export async function consumer(connection: NativeConnection, temporal: Client): Promise<PipelineResult> {
  const api = new WebDataClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:3002' });
  const store: DocumentStore = createStore('./store');
  const activities: WebDataActivities = createActivities({ client: api, store });
  const request: CrawlRequest = crawlRequestSchema.parse({ url: 'http://127.0.0.1:3003/', limit: 5 });
  const status: JobStatusResponse | undefined = undefined;
  const worker = await Worker.create({ connection, taskQueue: 'q', plugins: [webDataPlugin({ client: api, store })] });
  const own = await createWebDataWorker({ connection, taskQueue: 'q2', client: api, store });
  const input: PipelineInput = { url: request.url, select: { include: ['^/docs'] } };
  const handle = await startPipeline(temporal, input, { taskQueue: 'q' });
  void [activities, status, worker, own, STAGE, WebDataApiError, startWebhookServer, webDataPipeline, startLocalService];
  return handle.result();
}
`);
  // skipLibCheck stays off so our .d.ts are checked under these flags too. Errors in other
  // packages' declarations (Temporal's own fail exactOptionalPropertyTypes) are counted, not ours.
  let tscOut = '';
  try {
    tscOut = run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: app });
  } catch (err) {
    tscOut = `${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
  const errors = tscOut.split('\n').filter((l) => /error TS\d+/.test(l));
  const ours = errors.filter((l) => l.startsWith('consumer.ts') || l.startsWith('node_modules/webdata-'));
  const others = [...new Set(errors.filter((l) => !ours.includes(l)).map((l) => l.split('(')[0]))];
  check(ours.length === 0, `a strict TypeScript consumer (exactOptionalPropertyTypes, noUncheckedIndexedAccess, nodenext) type-checks against our .d.ts: ${ours.length} errors${ours.length ? `\n${ours.join('\n')}` : ''}`);
  if (others.length) log(`   (not ours: ${errors.length - ours.length} errors under these flags in ${others.join(', ')})`);

  // ---- 3. a consumer's own Worker with the plugin runs a pipeline -----------------------------
  const cli = run(process.execPath, ['--conditions=webdata-source', '--import', 'tsx', 'scripts/ensure-temporal-cli.ts'], { cwd: ROOT });
  const cliPath = /temporal CLI: (\S+)/.exec(cli)?.[1];
  if (!cliPath || !existsSync(cliPath)) throw new Error(`no Temporal CLI: ${cli}`);
  const port = await freePort();
  const attrs = ['WebdataStage=Keyword', 'WebdataTargetHost=Keyword', 'WebdataPages=Int', 'WebdataCredits=Int', 'WebdataOutcome=Keyword', 'WebdataTenant=Keyword'];
  await startChild('temporal', cliPath, ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(await freePort()), 
    '--log-level', 'error', ...attrs.flatMap((a) => ['--search-attribute', a])], /./, {});
  const { match: svc } = await startChild('webdata-service', join(app, 'node_modules', '.bin', 'webdata-service'), ['--port', '0', '--site-port', '0', '--pages', '60'],
    /on (http:\/\/\S+)[\s\S]*?demo site:\s+(http:\/\/\S+)[\s\S]*?API keys? ([^;,\s]+)/, { cwd: app });
  writeFileSync(join(app, 'worker.mjs'), `
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startPipeline } from 'webdata-temporal';
import { WebDataClient } from 'webdata-temporal/api';
import { createStore } from 'webdata-temporal/storage';
import { webDataPlugin } from 'webdata-temporal/plugin';

const [address, serviceUrl, siteUrl, apiKey] = process.argv.slice(2);
for (let i = 0; ; i++) {
  try { await (await Connection.connect({ address })).close(); break; } catch (err) { if (i > 120) throw err; await new Promise((r) => setTimeout(r, 500)); }
}
const connection = await NativeConnection.connect({ address });
const api = new WebDataClient({ apiKey, baseUrl: serviceUrl });
const store = createStore('./store');
// The user's own Worker: their options, plus the package through one plugin.
const worker = await Worker.create({ connection, taskQueue: 'consumer', plugins: [webDataPlugin({ client: api, store })] });
const client = new Client({ connection: await Connection.connect({ address }) });
const result = await worker.runUntil(async () => {
  const handle = await startPipeline(client, { url: siteUrl + '/', select: { include: ['^/docs'], limit: 8 }, crawl: { limit: 8 }, stages: { interact: false } }, { taskQueue: 'consumer' });
  return handle.result();
});
console.log(JSON.stringify({ status: result.status, documents: result.documents, stages: Object.fromEntries(Object.entries(result.stages).map(([k, v]) => [k, v.status])) }));
await api.close(); await store.close(); await connection.close();
`);
  // The run crawls the demo site on 127.0.0.1: the consumer allows that host:port, as a user would.
  const pipelineOut = run('node', ['worker.mjs', `127.0.0.1:${port}`, svc[1], svc[2], svc[3]], { cwd: app, timeout: 300_000, env: { ...process.env, WEBDATA_ALLOW_PRIVATE_ADDRESSES: new URL(svc[2]).host } });
  const last = JSON.parse(pipelineOut.trim().split('\n').pop());
  check(last.status === 'completed' && last.documents > 0, `a consumer Worker built with webDataPlugin runs a pipeline to completed against the installed webdata-service (${JSON.stringify(last)})`);

  // ---- 3b. interact code in node and python on the installed service: the runners it spawns
  // (a compiled child module, a Python file tsc does not copy) ship and are found -------------
  const call = async (method, path, body) => {
    const res = await fetch(svc[1] + path, { method, headers: { authorization: `Bearer ${svc[3]}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return { status: res.status, body: await res.json().catch(() => ({})) };
  };
  const scraped = await call('POST', '/v2/scrape', { url: `${svc[2]}/`, formats: ['markdown'] });
  const scrapeId = scraped.body?.data?.metadata?.scrapeId;
  check(typeof scrapeId === 'string', `the installed webdata-service scrapes its demo site (${scraped.status})`);
  for (const [language, code] of [['node', 'await page.title()'], ['python', 'page.title()']]) {
    const r = await call('POST', `/v2/scrape/${scrapeId}/interact`, { language, code, timeout: 60 });
    check(r.status === 200 && r.body.success === true && typeof r.body.result === 'string' && r.body.result.length > 0,
      `the installed webdata-service runs interact ${language} code (${r.status}, result ${JSON.stringify(r.body.result)}${r.body.error ? `, error ${String(r.body.error).slice(0, 300)}` : ''})`);
  }
  await call('DELETE', `/v2/scrape/${scrapeId}/interact`);

  // ---- 4. examples/backend, installed from the tarballs, against the same Temporal and service ---
  await exampleBackend({ temporalAddress: `127.0.0.1:${port}`, serviceUrl: svc[1], siteUrl: svc[2], apiKey: svc[3] }, tgz);
  log(`total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

try {
  await main();
} catch (err) {
  failures.push(String(err?.stack ?? err));
  console.error(err?.stderr ?? '', err?.stdout ?? '', err);
} finally {
  cleanup();
}
if (failures.length) {
  console.error(`\ntest:package: ${failures.length} failed`);
  process.exit(1);
}
log(`\ntest:package: ${step} checks passed`);
