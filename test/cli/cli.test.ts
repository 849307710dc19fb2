// The command line as a user runs it: `npm run demo` on a fresh stack, `webdata <command> --help`,
// and every failure as one line (exit 2 usage, 1 failure, never a stack trace without --debug).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { renderProgress } from '../../src/cli/progress-view.js';
import { getProgress } from '../../src/client/pipeline.js';
import { runCliInProcess, runNode } from '../helpers/cli.js';
import { jobsStarted, startStack } from '../helpers/stack.js';
import { pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';

const run = (args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs?: number) => runNode(args, { env, timeoutMs });

test('npm run demo: every stage, the deliberate crawl failure repaired by support ask, exit 0', async () => {
  // The workflows from the bundle the test files share (test/helpers/workflow-bundle.ts): the
  // demo's worker starts without running webpack.
  const { code, out, err } = await run(['lib/cli/demo.js'], { WEBDATA_WORKFLOW_BUNDLE: await pipelineWorkflowBundle() });
  assert.equal(code, 0, `${out}\n${err}`);
  assert.match(out, /run webdata-demo-\d+: completed/);
  assert.match(out, /crawl {5}repaired/);
  assert.match(out, /support \((high|medium), applied\)/);
  assert.match(out, /interact {2}completed/);
  assert.match(out, /\/shop\/catalog → \d+/);
  assert.match(out, /Temporal UI: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\//);
  // Then two runs of a schedule, the site changing in between: exactly its 3 + 1 + 2 pages reported.
  assert.match(out, /run 2: demo-watch-run-\S+ completed, \d+ pages · 2 new · 3 changed · \d+ unchanged · 1 removed/);
  assert.match(out, /changed:\n {2}\S+\/blog\/post-1\n {2}\S+\/docs\/guide-1\n {2}\S+\/shop\/item-1\nnew:\n {2}\S+\/blog\/new-1-1\n {2}\S+\/blog\/new-1-2\nremoved:\n {2}\S+\/blog\/post-7/);
});

test('webdata: bad input is refused before anything starts, naming the field and the rule', async () => {
  const bad = await run(['bin/webdata.js', 'run', 'http://127.0.0.1:9/', '--crawl-limit', 'lots']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--crawl-limit: must be a whole number/);
  // --skip scrape and an unknown command: among the usage errors below (in-process).
  const help = await run(['bin/webdata.js', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /webdata run <url>/);
  const worker = await run(['bin/webdata.js', 'worker'], { WEBDATA_API_URL: '', WEBDATA_API_KEY: '' });
  assert.equal(worker.code, 2);
  assert.match(worker.err, /WEBDATA_API_KEY: is required/);
});

// ---- every command's --help, and failures as one line (exit 2 usage, 1 failure, no stack) ----
// Help, usage errors and --dry-run answer before anything connects: they run main() in this
// process (test/helpers/cli.ts); the test above and the failures below run bin/webdata.js.

const BIN = 'bin/webdata.js';

interface Ran { code: number | null; out: string; err: string; ms: number }

async function webdata(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 240_000): Promise<Ran> {
  const started = Date.now();
  const r = await run([BIN, ...args], env, timeoutMs);
  return { ...r, ms: Date.now() - started };
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `webdata <args>` run in this process (src/cli/main.ts's main, output captured). */
async function inProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const started = Date.now();
  const r = await runCliInProcess(args, env);
  return { ...r, ms: Date.now() - started };
}

/** One line on stderr matching `pattern`, the exit code, and no stack trace anywhere. */
function assertOneLineFailure(r: Ran, code: number, pattern: RegExp, what: string): void {
  const detail = `${what}\nexit ${r.code}\nstdout: ${r.out}\nstderr: ${r.err}`;
  assert.equal(r.code, code, detail);
  const lines = r.err.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `stderr must be one line: ${detail}`);
  assert.match(lines[0], pattern, detail);
  assert.doesNotMatch(r.err + r.out, /\n\s+at /, `stack trace printed: ${detail}`);
}

test('webdata <command> --help: every command, exit 0, no connection made', async () => {
  // Temporal is "at" a closed port: a command that tried to connect would fail, not print help.
  const env = { TEMPORAL_ADDRESS: `127.0.0.1:${await closedPort()}`, WEBDATA_API_URL: '', WEBDATA_API_KEY: '' };
  for (const args of [['run', '--help'], ['status', '--help'], ['cancel', '--help'], ['schedule', '--help'], ['schedule', 'create', '--help'],
    ['export', '--help'], ['dev', '--help'], ['worker', '--help'], ['run', 'http://127.0.0.1:9/', '-h'], ['help', 'run']]) {
    const r = await inProcess(args, env);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    assert.equal(r.err, '', `${args.join(' ')} wrote to stderr: ${r.err}`);
    assert.match(r.out, new RegExp(`usage: webdata ${args[0] === 'help' ? args[1] : args[0]}`), args.join(' '));
  }
});

test('usage errors: one line naming the flag or file and the fix, exit 2, before anything connects', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'webdata-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{"url": "http://127.0.0.1:9/", ');
  const env = { TEMPORAL_ADDRESS: `127.0.0.1:${await closedPort()}` };
  const cases: Array<[string[], RegExp]> = [
    [['run', 'http://127.0.0.1:9/', '--frobnicate'], /webdata run: Unknown option '--frobnicate'.*webdata run --help/],
    [['run', 'http://127.0.0.1:9/', '--crawl-limit', '-5'], /webdata run: .*'--crawl-limit' argument is ambiguous/],
    [['run', 'http://127.0.0.1:9/', '--crawl-limit=-5'], /webdata run: --crawl-limit: must be a whole number/],
    [['run', 'http://127.0.0.1:9/', '--crawl-limit', 'lots'], /--crawl-limit: must be a whole number/],
    [['run', 'http://127.0.0.1:9/', '--skip', 'scrape'], /--skip: unknown stage "scrape"/],
    [['run', 'http://127.0.0.1:9/', '--mode', 'sometimes'], /webdata run: invalid input: mode: /],
    [['run', '--input', bad], new RegExp(`webdata run: --input ${bad.replace(/[.\\]/g, '\\$&')}: not valid JSON`)],
    [['run', '--input', join(dir, 'missing.json')], /webdata run: --input .*missing\.json: no such file/],
    [['status'], /webdata status: a workflow id is required/],
    [['status', 'a', '--frobnicate'], /webdata status: Unknown option '--frobnicate'/],
    [['cancel', '--frobnicate', 'x'], /webdata cancel: Unknown option '--frobnicate'/],
    [['export', 'r1', '--format', 'pdf'], /webdata export: --format: "pdf" is not a format/],
    [['dev', '--temporal-port', 'x'], /webdata dev: --temporal-port: must be a whole number/],
    [['schedule'], /webdata schedule: a subcommand is required/],
    [['schedule', 'create', 's1', 'http://127.0.0.1:9/', '--every', 'soon'], /webdata schedule: --every: "soon" is not an interval/],
    [['schedule', 'create', 's1', 'http://127.0.0.1:9/', '--cron', 'every day'], /webdata schedule: --cron: "every day" is not a cron expression/],
    [['schedule', 'create', 's1', 'http://127.0.0.1:9/', '--every', '6h', '--overlap', 'sometimes'], /webdata schedule: --overlap: unknown policy "sometimes" \(policies: skip/],
    [['schedule', 'create', 's1', 'http://127.0.0.1:9/'], /exactly one of --cron .* or --every/],
    [['schedule', 'create', 's1', 'http://127.0.0.1:9/', '--every', '6h', '--no-changes', '--changes-webhook', 'http://127.0.0.1:9/h'], /webdata schedule: --changes-webhook and --no-changes exclude each other/],
    [['schedule', 'create', 's 1', 'http://127.0.0.1:9/', '--every', '6h'], /webdata schedule: .*changes\.series: must be 1-128 letters/],
    [['schedule', 'trigger'], /webdata schedule: trigger needs one schedule id/],
    [['frobnicate'], /webdata: unknown command "frobnicate"/],
  ];
  for (const [args, pattern] of cases) assertOneLineFailure(await inProcess(args, env), 2, pattern, args.join(' '));
  // --debug adds the stack trace.
  const debug = await inProcess(['run', 'http://127.0.0.1:9/', '--crawl-limit=-5', '--debug'], env);
  assert.equal(debug.code, 2);
  assert.match(debug.err, /\n\s+at /);
});

test('--dry-run prints the merged input: flags override single fields of --input, the rest stays', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'webdata-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'input.json');
  writeFileSync(file, JSON.stringify({ url: 'https://example.com/', crawl: { limit: 50 }, budget: { credits: 10, monthlyCap: 500 }, select: { include: ['^/docs', '^/blog'] } }));
  const r = await inProcess(['run', '--input', file, '--depth', '2', '--budget', '99', '--search', 'pricing', '--dry-run'], { TEMPORAL_ADDRESS: `127.0.0.1:${await closedPort()}` });
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), {
    url: 'https://example.com/',
    crawl: { limit: 50, maxDiscoveryDepth: 2 },
    budget: { credits: 99, monthlyCap: 500 },
    select: { include: ['^/docs', '^/blog'], search: 'pricing' },
  });
  // A schedule's runs compare with its previous run: series = the schedule id, unless --no-changes.
  const scheduled = await inProcess(['schedule', 'create', 'shop-daily', 'https://example.com/', '--every', '1d', '--changes-webhook', 'https://hooks.example.com/c', '--dry-run']);
  assert.equal(scheduled.code, 0, scheduled.err);
  assert.deepEqual(JSON.parse(scheduled.out).changes, { series: 'shop-daily', webhookUrl: 'https://hooks.example.com/c' });
  const plain = await inProcess(['schedule', 'create', 'shop-daily', 'https://example.com/', '--every', '1d', '--no-changes', '--dry-run']);
  assert.equal(JSON.parse(plain.out).changes, undefined);
  const noCredits = await inProcess(['run', 'https://example.com/', '--monthly-cap', '5', '--dry-run']);
  assertOneLineFailure(noCredits, 2, /--monthly-cap needs a run budget too: add --budget N/, 'monthly cap alone');
});

test('Temporal unreachable: one line naming the address and the fix, exit 1, within seconds', async (t) => {
  const address = `127.0.0.1:${await closedPort()}`;
  // The commands probe the address before making a connection: in-process, nothing is left
  // open. The worker's connection is the Rust core's: it runs as its own process.
  for (const args of [['status', 'some-run'], ['cancel', 'some-run'], ['schedule', 'list'], ['run', 'https://example.com/'], ['worker']]) {
    const r = await (args[0] === 'worker' ? webdata : inProcess)(args, { TEMPORAL_ADDRESS: address, WEBDATA_API_URL: 'http://127.0.0.1:9', WEBDATA_API_KEY: 'k', WEBDATA_STORE: tmpdir(), TEMPORAL_LOG_LEVEL: 'ERROR' });
    assertOneLineFailure(r, 1, new RegExp(`webdata ${args[0]}: cannot reach Temporal at ${address} \\(namespace default\\): connection refused.*webdata dev.*TEMPORAL_ADDRESS`), args.join(' '));
    t.diagnostic(`${args.join(' ')}: answered in ${r.ms} ms`);
    // The goal is < 5 s; the bound is loose so a loaded CI machine does not flake.
    assert.ok(r.ms < 30_000, `${args.join(' ')} took ${r.ms} ms`);
  }
});

test('export: a store that is down or empty is named in the one-line message', async (t) => {
  const port = await closedPort();
  const down = await webdata(['export', 'r1', '--store', `postgres://webdata:secret@127.0.0.1:${port}/x`]);
  assertOneLineFailure(down, 1, new RegExp(`webdata export: cannot read store postgres://webdata:\\*\\*\\*@127\\.0\\.0\\.1:${port}/x \\(from --store\\).*PostgreSQL is running`), 'postgres down');
  assert.doesNotMatch(down.err, /secret/);
  const dir = mkdtempSync(join(tmpdir(), 'webdata-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const empty = await webdata(['export', 'r1', '--store', dir]);
  assertOneLineFailure(empty, 1, new RegExp(`no documents stored for run r1 in store folder ${dir.replace(/[.\\]/g, '\\$&')} \\(from --store\\)`), 'empty store');
  const missing = spawnSync(process.execPath, [join(process.cwd(), BIN), 'export', 'r1'], { cwd: dir, env: { ...process.env, WEBDATA_STORE: '' }, encoding: 'utf8' });
  assertOneLineFailure({ code: missing.status, out: missing.stdout, err: missing.stderr, ms: 0 }, 1, /no store folder .*\.data\/store \(the default; --store or WEBDATA_STORE picks another\)/, 'default store missing');
});

test('progress bars: a running job fills against its own total, never full before it is', () => {
  const p = (stage: Record<string, unknown>): string[] => renderProgress({
    stage: 'crawl', status: 'running', documents: 0, continuedAsNew: 0, jobs: {}, credits: { budget: null, spent: 0, byStage: {}, events: [] },
    stages: { crawl: { credits: 0, ...stage } as never },
  });
  assert.match(p({ status: 'running', documents: 5, total: 20 })[1], /crawl {5}█████░{15} running +5\/20/);
  assert.match(p({ status: 'running', documents: 5 })[1], /crawl {5}\s{20} running +5 /, 'no total yet: empty, not full');
  assert.match(p({ status: 'completed', documents: 11, total: 12 })[1], /crawl {5}█{18}░░ completed +11\/12/);
  assert.match(p({ status: 'cancelled', documents: 0, reason: 'run cancelled' })[1], /crawl {5}\s{20} cancelled .*run cancelled/);
});

// status, cancel and schedule answer in this process (they connect, answer and close the
// connection); a run, and its Ctrl-C, run bin/webdata.js.
describe('against a running stack', () => {
  let stack: DevStack;
  let env: NodeJS.ProcessEnv;
  const UI = 'http://127.0.0.1:1/ui';
  before(async () => {
    stack = await startStack();
    env = { TEMPORAL_ADDRESS: stack.temporal.address, TEMPORAL_NAMESPACE: stack.temporal.namespace, TEMPORAL_UI_URL: UI };
  });
  after(async () => {
    await stack?.close();
  });

  test('unknown workflow id: status and cancel say so in one line, exit 1', async () => {
    for (const command of ['status', 'cancel']) {
      const r = await inProcess([command, 'no-such-run'], env);
      assertOneLineFailure(r, 1, new RegExp(`webdata ${command}: no run with workflow id no-such-run in namespace ${stack.temporal.namespace} at ${stack.temporal.address}`), command);
    }
  });

  test('schedule errors: bad cron, duplicate id, unknown id — one line each', async () => {
    const id = `cli-sched-${Date.now()}`;
    const site = stack.service.siteUrl as string;
    const badCron = await inProcess(['schedule', 'create', id, `${site}/`, '--cron', '99 99 * * *'], env);
    assertOneLineFailure(badCron, 2, /webdata schedule: --cron: Temporal refused "99 99 \* \* \*": .*not in range.*e\.g\. "0 3 \* \* \*"/, 'bad cron');
    const created = await inProcess(['schedule', 'create', id, `${site}/`, '--every', '1d', '--paused', '--task-queue', stack.taskQueue], env);
    assert.equal(created.code, 0, created.err);
    try {
      const dup = await inProcess(['schedule', 'create', id, `${site}/`, '--every', '1d', '--paused'], env);
      assertOneLineFailure(dup, 1, new RegExp(`webdata schedule: schedule ${id} already exists: .*webdata schedule delete ${id}`), 'duplicate');
    } finally {
      assert.equal((await inProcess(['schedule', 'delete', id], env)).code, 0);
    }
    for (const sub of ['pause', 'unpause', 'delete', 'trigger']) {
      const r = await inProcess(['schedule', sub, 'no-such-schedule'], env);
      assertOneLineFailure(r, 1, /webdata schedule: no schedule no-such-schedule in this namespace: `webdata schedule list`/, sub);
    }
  });

  test('run --mode batch starts no crawl; run prints the Temporal UI link; cancel of an ended run says so', async () => {
    const since = Date.now();
    const site = stack.service.siteUrl as string;
    const id = `cli-batch-${Date.now()}`;
    const r = await webdata(['run', `${site}/`, '--mode', 'batch', '--include', '^/docs', '--limit', '3', '--skip', 'interact', '--task-queue', stack.taskQueue, '--workflow-id', id], env);
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.match(r.out, new RegExp(`Temporal UI: ${UI}/namespaces/${stack.temporal.namespace}/workflows/${id}`));
    assert.match(r.out, /crawl {5}skipped · 0 credits · mode batch/);
    assert.match(r.out, /batch {5}completed · 3 docs/);
    assert.deepEqual(await jobsStarted(stack, 'crawl', since), [], 'batch mode started a crawl');
    const cancel = await inProcess(['cancel', id], env);
    assert.equal(cancel.code, 0, cancel.err);
    assert.match(cancel.out, new RegExp(`run ${id} already ended: it completed at .*; nothing to cancel`));
  });

  test('Ctrl-C during run says how to follow or cancel the run that goes on; after cancel, status shows the stage cancelled', async (t) => {
    const site = stack.service.siteUrl as string;
    const dir = mkdtempSync(join(tmpdir(), 'webdata-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const input = join(dir, 'slow.json');
    // The interact code outlasts the test: the run is in its interact stage until cancelled.
    writeFileSync(input, JSON.stringify({
      url: `${site}/shop/catalog`,
      stages: { map: false, select: false, batch: false },
      crawl: { limit: 1 },
      interact: { match: '/shop/catalog', code: 'await page.waitForTimeout(280000); 1', maxPages: 1, timeout: 300 },
    }));
    const id = `cli-ctrlc-${Date.now()}`;
    const child = spawn(process.execPath, [BIN, 'run', '--input', input, '--task-queue', stack.taskQueue, '--workflow-id', id], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Interrupt once the CLI is following a run whose interact stage is under way.
    await until('the interact stage running', async () => {
      const p = await getProgress(stack.temporal.client, id).catch(() => undefined);
      return out.includes(`started ${id}`) && p?.stages.interact?.status === 'running';
    });
    child.kill('SIGINT');
    const interruptedAt = Date.now();
    const code = await closed;
    // The CLI ends the result's long poll, which the server would hold for 20 s: the process
    // exits at once (under a second here), not when the poll returns.
    assert.ok(Date.now() - interruptedAt < 15_000, `the CLI took ${Date.now() - interruptedAt} ms to exit after Ctrl-C`);
    assertOneLineFailure({ code, out, err, ms: 0 }, 130, new RegExp(`stopped following ${id}; the run goes on\\. Follow it: webdata status ${id} · cancel it: webdata cancel ${id}`), 'Ctrl-C');
    assert.equal((await stack.temporal.client.workflow.getHandle(id).describe()).status.name, 'RUNNING', 'Ctrl-C must not stop the run');

    const cancel = await inProcess(['cancel', id], env);
    assert.equal(cancel.code, 0, cancel.err);
    assert.match(cancel.out, new RegExp(`cancellation requested for ${id}`));
    await assert.rejects(stack.temporal.client.workflow.getHandle(id).result(), /cancel/i);
    const status = await inProcess(['status', id, '--json'], env);
    assert.equal(status.code, 0, status.err);
    const progress = JSON.parse(status.out) as { status: string; stages: Record<string, { status: string }> };
    assert.equal(progress.status, 'cancelled');
    assert.equal(progress.stages.interact?.status, 'cancelled');
    assert.ok(!Object.values(progress.stages).some((s) => s.status === 'running'), status.out);
    const again = await inProcess(['cancel', id], env);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, new RegExp(`run ${id} already ended: it was cancelled`));
  });
});

/** Polls until `check` holds; the deadline only catches what never happens. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 250))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}
