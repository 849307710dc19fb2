// `webdata webhooks` as an operator runs it: the compiled CLI on a free port against a real
// Temporal dev server, a signed delivery for a running run (signalled) and for an unknown run
// (acknowledged, ignored), an unsigned one refused, SIGTERM closes it; --help connects nowhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { freeLoopbackPort } from '../../src/devserver/index.js';
import { startTestTemporal } from '../helpers/temporal.js';
import { hosted, type Delivery } from '../webhooks/fixtures.js';
import { receivedQuery, recorderWorkflow } from '../webhooks/recorder-workflow.js';

const BIN = 'bin/webdata.js';
const SECRET = `whsec-${randomUUID()}`;
const TASK_QUEUE = 'cli-webhooks';

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('webhooks', () => {
  before(async () => {
    env = await startTestTemporal();
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue: TASK_QUEUE,
      workflowsPath: fileURLToPath(new URL('../webhooks/recorder-workflow.ts', import.meta.url)),
    });
    running = worker.run();
  });

  after(async () => {
    if (worker) {
      worker.shutdown();
      await running;
    }
    await env?.teardown();
  });

  interface Started { child: ChildProcess; out: () => string; err: () => string; closed: Promise<number | null> }

  function start(args: string[], extraEnv: NodeJS.ProcessEnv): Started {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    return { child, out: () => out, err: () => err, closed };
  }

  async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  }

  async function deliver(url: string, d: Delivery) {
    const res = await request(url, { method: 'POST', body: d.body, headers: d.headers });
    return { status: res.statusCode, body: (await res.body.json()) as { outcome: string; reason: string } };
  }

  test('webdata webhooks --help: usage, exit 0, no connection', async () => {
    const r = start(['webhooks', '--help'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(await r.closed, 0, r.err());
    assert.equal(r.err(), '');
    assert.match(r.out(), /usage: webdata webhooks --port N \[--host H\]/);
    assert.match(r.out(), /WEBDATA_WEBHOOK_SECRET/);
    const top = start(['--help'], {});
    assert.equal(await top.closed, 0);
    assert.match(top.out(), /webdata webhooks --port N/);
    const noPort = start(['webhooks'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(await noPort.closed, 2);
    assert.match(noPort.err(), /^webdata webhooks: --port is required/);
  });

  test('webdata webhooks: signed deliveries signal a running run, an unknown run is acknowledged, SIGTERM closes it', async () => {
    const port = await freeLoopbackPort();
    const rx = start(['webhooks', '--port', String(port)], {
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace,
      WEBDATA_WEBHOOK_SECRET: SECRET,
      WEBDATA_WEBHOOK_SIGNATURE_HEADERS: 'x-firecrawl-signature',
    });
    try {
      await until('the receiver to start', () => rx.out().includes('receiving on') || rx.child.exitCode !== null);
      assert.match(rx.out(), new RegExp(`webdata webhooks: receiving on http://127\\.0\\.0\\.1:${port}/webhooks .*signatures required`), rx.err());
      const url = `http://127.0.0.1:${port}/webhooks`;

      const workflowId = `cli-webhooks-${randomUUID()}`;
      const handle = await env.client.workflow.start(recorderWorkflow, { taskQueue: TASK_QUEUE, workflowId });
      try {
        const ok = await deliver(url, hosted({ type: 'crawl.completed', workflowId }, SECRET));
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        assert.equal(ok.body.outcome, 'signalled');
        await until('the signal recorded', async () => (await handle.query(receivedQuery)).length === 1);
        assert.equal((await handle.query(receivedQuery))[0].type, 'crawl.completed');

        const unknown = await deliver(url, hosted({ type: 'crawl.completed', workflowId: 'no-such-run' }, SECRET));
        assert.equal(unknown.status, 202, JSON.stringify(unknown.body));
        assert.equal(unknown.body.outcome, 'ignored');
        assert.match(unknown.body.reason, /signal failed/);

        const unsigned = await deliver(url, hosted({ type: 'crawl.completed', workflowId }));
        assert.equal(unsigned.status, 401);
        assert.equal(unsigned.body.outcome, 'rejected');
      } finally {
        await handle.terminate();
      }
    } finally {
      rx.child.kill('SIGTERM');
    }
    assert.equal(await rx.closed, 0, rx.err());
    assert.match(rx.out(), /webdata webhooks: stopped/);
  });

  test('webdata webhooks without a secret says deliveries are unauthenticated', async () => {
    const port = await freeLoopbackPort();
    const rx = start(['webhooks', '--port', String(port)], { TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: env.namespace, WEBDATA_WEBHOOK_SECRET: '' });
    await until('the receiver to start', () => rx.out().includes('receiving on') || rx.child.exitCode !== null);
    assert.match(rx.out(), /unauthenticated hints/, rx.err());
    assert.match(rx.err(), /UNAUTHENTICATED/);
    rx.child.kill('SIGINT');
    assert.equal(await rx.closed, 0, rx.err());
  });
});
