// `webdata doctor` and starts on a namespace set up before the tenants release (the five older
// search attributes), run as a user runs them: bin/webdata.js in a process whose environment holds
// only what the docs tell a user to set. Then `webdata status --tenant` on a tenant with a ledger.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { msToTs } from '@temporalio/common/lib/time.js';
import { resolveTemporalCli } from '../../src/devserver/index.js';
import { LEDGER_WORKFLOW_TYPE, ledgerWorkflowId } from '../../src/shared/tenant-ledger-messages.js';
import { explain } from '../../src/cli/errors.js';
import { runToEnd, startStack } from '../helpers/stack.js';
import { testServer } from '../storage/postgres-server.js';

const LEGACY = 'legacy';
/** What docs/operations.md registered before the tenants release. */
const OLDER_ATTRIBUTES = { WebdataStage: 2, WebdataTargetHost: 2, WebdataPages: 3, WebdataCredits: 3, WebdataOutcome: 2 }; // IndexedValueType: 2 Keyword, 3 Int

let stack: DevStack;
let storeDir: string;

before(async () => {
  stack = await startStack();
  storeDir = mkdtempSync(join(tmpdir(), 'webdata-doctor-'));
  const { workflowService, operatorService } = stack.temporal.client.connection;
  await workflowService.registerNamespace({ namespace: LEGACY, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await operatorService.addSearchAttributes({ namespace: LEGACY, searchAttributes: OLDER_ATTRIBUTES });
});

after(async () => {
  await stack?.close();
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
});

interface Ran { code: number | null; out: string; err: string }

/** A command in a clean environment: PATH and HOME, plus `env`. */
function runClean(command: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`timed out: ${command} ${args.join(' ')}\n${out}\n${err}`)); }, timeoutMs);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

/** What the README and docs/operations.md tell a user to set for the CLI and the worker. */
function userEnv(namespace: string): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: stack.temporal.address,
    TEMPORAL_NAMESPACE: namespace,
    WEBDATA_API_URL: stack.service.url,
    WEBDATA_API_KEY: stack.service.apiKey,
    WEBDATA_STORE: storeDir,
  };
}

const webdata = (args: string[], env: Record<string, string>) => runClean(process.execPath, ['bin/webdata.js', ...args], env);

/** The check's line of doctor's output (`fail  search attributes  ...`). */
function line(out: string, check: string): string {
  const found = out.split('\n').find((l) => new RegExp(`^(ok|warn|fail) +${check} `).test(l));
  assert.ok(found, `no "${check}" line in:\n${out}`);
  return found;
}

test('a namespace of the five older attributes: run refused naming WebdataTenant, doctor prints the one command, which fixes it', async () => {
  const env = userEnv(LEGACY);

  // A start is refused with one line: the attribute and the command that registers it.
  const refused = await webdata(['run', 'https://example.com/', '--no-wait'], env);
  assert.equal(refused.code, 1, `${refused.out}\n${refused.err}`);
  const register = `temporal operator search-attribute create --namespace ${LEGACY} --name WebdataTenant --type Keyword`;
  assert.equal(refused.err.trim(), `webdata run: namespace ${LEGACY} lacks the search attribute WebdataTenant that webdata-temporal sets on its runs; register it once (docs/operations.md): ${register}`);

  const before = await webdata(['doctor'], env);
  assert.equal(before.code, 1, `${before.out}\n${before.err}`);
  assert.match(line(before.out, 'temporal'), new RegExp(`^ok +temporal +${stack.temporal.address.replace(/\./g, '\\.')}, namespace ${LEGACY} \\(server \\d+\\.\\d+`));
  const attributes = line(before.out, 'search attributes');
  assert.match(attributes, /^fail +search attributes +namespace legacy lacks WebdataTenant \(Keyword\): every run start is refused\. Fix: /);
  const printed = /Fix: (temporal operator .*)$/.exec(attributes)?.[1] ?? '';
  assert.equal(printed, register);
  // The rest of the deployment is fine: the service takes the key, the store is writable, private addresses refused.
  assert.match(line(before.out, 'service'), new RegExp(`^ok +service +${stack.service.url.replace(/\./g, '\\.')} accepts the key`));
  assert.match(line(before.out, 'store'), /^ok +store +folder .* is writable/);
  assert.match(line(before.out, 'worker settings'), /^ok /);
  assert.match(line(before.out, 'fairness'), /^ok +fairness +server \d+\.\d+\.\d+ supports fairness/);
  assert.match(line(before.out, 'address policy'), /^ok +address policy +private addresses: refused \(WEBDATA_ALLOW_PRIVATE_ADDRESSES is off\)$/);
  assert.match(before.out, /^6 ok, 0 warn, 1 fail$/m);

  // The printed command, as the user pastes it (the temporal CLI reads TEMPORAL_ADDRESS too).
  const [, ...registerArgs] = printed.split(' ');
  const cli = await resolveTemporalCli();
  assert.ok(cli.path, 'the temporal CLI has a path');
  const registered = await runClean(cli.path, registerArgs, { TEMPORAL_ADDRESS: stack.temporal.address });
  assert.equal(registered.code, 0, `${registered.out}\n${registered.err}`);

  const afterFix = await webdata(['doctor'], env);
  assert.equal(afterFix.code, 0, `${afterFix.out}\n${afterFix.err}`);
  assert.match(line(afterFix.out, 'search attributes'), /^ok +search attributes +namespace legacy has all 6 the package sets, with their types$/);
  assert.match(afterFix.out, /^7 ok, 0 warn, 0 fail$/m);

  // And a start goes through (no worker polls this namespace: --no-wait only starts it).
  const started = await webdata(['run', 'https://example.com/', '--no-wait', '--workflow-id', 'legacy-after-fix'], env);
  assert.equal(started.code, 0, `${started.out}\n${started.err}`);
  assert.match(started.out, /legacy-after-fix/);
});

test('doctor names what is wrong: an unknown namespace, a refused key, an unreachable service, the blanket address allowance', async () => {
  const r = await webdata(['doctor'], {
    ...userEnv('nowhere'),
    WEBDATA_API_KEY: 'fc-not-a-key-of-this-team',
    WEBDATA_ALLOW_PRIVATE_ADDRESSES: '1',
  });
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(line(r.out, 'temporal'), /^fail +temporal +.* has no namespace nowhere\. Fix: set TEMPORAL_NAMESPACE to yours, or create it: temporal operator namespace create --namespace nowhere$/);
  assert.match(line(r.out, 'search attributes'), /^warn +search attributes +not checked: Temporal did not answer/);
  assert.match(line(r.out, 'service'), /^fail +service +.* refused the key \(401\)/);
  assert.match(line(r.out, 'address policy'), /^warn +address policy +private addresses: all allowed \(WEBDATA_ALLOW_PRIVATE_ADDRESSES is the blanket 1\/true/);

  const down = await webdata(['doctor'], { ...userEnv('default'), WEBDATA_API_URL: 'http://127.0.0.1:9', WEBDATA_ALLOW_PRIVATE_ADDRESSES: '127.0.0.1:3003,crawler.internal:8080' });
  assert.equal(down.code, 1);
  assert.match(line(down.out, 'address policy'), /^ok +address policy +private addresses: allowed only for 127\.0\.0\.1:3003, crawler\.internal:8080 \(WEBDATA_ALLOW_PRIVATE_ADDRESSES\)$/);
  assert.match(line(down.out, 'service'), /^fail +service +cannot reach the service at http:\/\/127\.0\.0\.1:9: .*ECONNREFUSED.* Fix: check WEBDATA_API_URL/);
  assert.match(line(down.out, 'search attributes'), /^ok /);
});

test('status --tenant lists the tenant\'s runs, not its ledger', async () => {
  const env = userEnv(stack.temporal.namespace);
  const budget = await webdata(['tenants', '--tenant', 'acme', '--set-budget', '100000', '--task-queue', stack.taskQueue], env);
  assert.equal(budget.code, 0, `${budget.out}\n${budget.err}`);
  const { id } = await runToEnd(stack, { url: `${stack.service.siteUrl}/`, tenant: 'acme', stages: { map: false, select: false, batch: false, interact: false }, crawl: { limit: 2 } });

  // Both are in visibility before the listing is read: the ledger's absence is the filter's doing.
  const client = stack.temporal.client;
  const visible = async (query: string, workflowId: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      for await (const w of client.workflow.list({ query })) if (w.workflowId === workflowId) return;
      if (Date.now() > deadline) assert.fail(`${workflowId} never listed by ${query}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  await visible(`WorkflowType = '${LEDGER_WORKFLOW_TYPE}' AND WebdataTenant = 'acme'`, ledgerWorkflowId('acme'));
  await visible(`WebdataTenant = 'acme' AND ExecutionStatus = 'Completed'`, id);

  const status = await webdata(['status', '--tenant', 'acme'], env);
  assert.equal(status.code, 0, `${status.out}\n${status.err}`);
  assert.match(status.out, new RegExp(`^ {2}${id} {2}completed `, 'm'));
  assert.doesNotMatch(status.out, new RegExp(ledgerWorkflowId('acme')));
  assert.equal(status.out.trim().split('\n').length, 2, status.out);
});

test('doctor on a PostgreSQL store: tables the worker will create, a test write rolled back; a server that refuses connections', async () => {
  const pg = await testServer();
  try {
    const schema = `doctor_${process.pid}`;
    const url = `${pg.url}${pg.url.includes('?') ? '&' : '?'}schema=${schema}`;
    const r = await webdata(['doctor'], { ...userEnv(stack.temporal.namespace), WEBDATA_STORE: url });
    assert.match(line(r.out, 'store'), new RegExp(`^ok +store +.*: schema ${schema} lacks runs, documents, failures, links, which the worker creates on first write \\(this user may\\); a test write was rolled back$`));
    // Rolled back: the schema was not left behind.
    const again = await webdata(['doctor'], { ...userEnv(stack.temporal.namespace), WEBDATA_STORE: url });
    assert.match(line(again.out, 'store'), new RegExp(`schema ${schema} lacks runs`));
    const refused = await webdata(['doctor'], { ...userEnv(stack.temporal.namespace), WEBDATA_STORE: 'postgres://webdata@127.0.0.1:9/webdata' });
    assert.equal(refused.code, 1);
    assert.match(line(refused.out, 'store'), /^fail +store +cannot connect to postgres:\/\/webdata@127\.0\.0\.1:9\/webdata: .*ECONNREFUSED/);
  } finally {
    await pg.release();
  }
});

test('a failure that is not one of the known kinds prints its cause chain, the server\'s words included', () => {
  const grpc = Object.assign(new Error('3 INVALID_ARGUMENT: workflow type too long'), { code: 3, details: 'workflow type too long', metadata: {} });
  const { message, exitCode } = explain(new Error('Failed to start Workflow', { cause: grpc }), 'run');
  assert.equal(message, 'Failed to start Workflow: workflow type too long (run with --debug for details)');
  assert.equal(exitCode, 1);
});
