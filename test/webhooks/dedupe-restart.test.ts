// De-duplication that survives a receiver restart and is shared between receivers: the
// workflow itself ignores a webhookId it has acted on, in bounded memory carried through
// continue-as-new. Real Temporal dev server, real receivers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startWebhookServer, type WebhookServer } from '../../src/webhooks/index.js';
import { jobEventSignal } from '../../src/workflows/definitions.js';
import { SEEN_WEBHOOKS_KEPT } from '../../src/workflows/runtime.js';
import { startTestTemporal } from '../helpers/temporal.js';
import { hosted, type Delivery } from './fixtures.js';
import { actedOnQuery, dedupeWorkflow, handOverSignal } from './dedupe-workflow.js';

const SECRET = `whsec-${randomUUID()}`;
const TASK_QUEUE = 'webhook-dedupe';
const DEADLINE_MS = 30_000;

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('dedupe-restart', () => {
  before(async () => {
    env = await startTestTemporal();
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue: TASK_QUEUE,
      workflowsPath: fileURLToPath(new URL('./dedupe-workflow.ts', import.meta.url)),
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

  const receiver = () => startWebhookServer({ client: env.client, secret: SECRET, signalWaitMs: DEADLINE_MS });

  async function deliver(rx: WebhookServer, d: Delivery): Promise<string> {
    const res = await request(rx.url, { method: 'POST', body: d.body, headers: d.headers });
    const body = (await res.body.json()) as { outcome: string };
    assert.equal(res.statusCode, 200);
    return body.outcome;
  }

  async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + DEADLINE_MS;
    let last: T | undefined;
    for (;;) {
      try {
        last = await read();
        if (done(last)) return last;
      } catch {
        // the workflow may not have run its (next) first task yet
      }
      if (Date.now() > deadline) assert.fail(`${what}: not within ${DEADLINE_MS} ms (last: ${JSON.stringify(last)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function startDedupe() {
    const workflowId = `webhook-dedupe-${randomUUID()}`;
    await env.client.workflow.start(dedupeWorkflow, { taskQueue: TASK_QUEUE, workflowId, args: [] });
    // A handle without a run id follows the chain across continue-as-new.
    const handle = env.client.workflow.getHandle(workflowId);
    const read = () => handle.query(actedOnQuery);
    return { workflowId, handle, read, until: (what: string, done: (v: Awaited<ReturnType<typeof read>>) => boolean) => waitFor(what, read, done) };
  }

  describe('webhook de-duplication in the workflow', () => {
    test('a delivery sent again to a restarted receiver, after a continue-as-new, and to a second receiver is acted on once', async () => {
      const wf = await startDedupe();
      const first = await receiver();
      const d = hosted({ type: 'crawl.completed', workflowId: wf.workflowId }, SECRET);
      assert.equal(await deliver(first, d), 'signalled');
      await wf.until('the first delivery acted on', (v) => v.actedOn.length === 1);
      await first.close();

      await wf.handle.signal(handOverSignal);
      await wf.until('the continue-as-new', (v) => v.runs === 1);

      // The restarted receiver has no memory of it: it signals, and the workflow ignores it.
      const restarted = await receiver();
      const second = await receiver();
      try {
        assert.equal(await deliver(restarted, d), 'signalled');
        assert.equal(await deliver(second, d), 'signalled');
        // A sentinel delivered last: once it is acted on, the duplicates before it were decided.
        const sentinel = hosted({ type: 'crawl.started', workflowId: wf.workflowId }, SECRET);
        assert.equal(await deliver(second, sentinel), 'signalled');
        const { actedOn } = await wf.until('the sentinel', (v) => v.actedOn.some((e) => e.startsWith(sentinel.jobId)));
        assert.deepEqual(actedOn, [`${d.jobId} crawl.completed`, `${sentinel.jobId} crawl.started`]);
      } finally {
        await restarted.close();
        await second.close();
      }
    });

    test(`remembers the last ${SEEN_WEBHOOKS_KEPT} ids: the oldest is forgotten, memory stays bounded`, async () => {
      const wf = await startDedupe();
      const ids = Array.from({ length: SEEN_WEBHOOKS_KEPT + 4 }, () => randomUUID());
      for (const webhookId of ids) await wf.handle.signal(jobEventSignal, { jobId: 'job', type: 'crawl.started', webhookId });
      // The newest id again: ignored. The oldest again: forgotten, so acted on.
      await wf.handle.signal(jobEventSignal, { jobId: 'job', type: 'crawl.completed', webhookId: ids.at(-1) as string });
      await wf.handle.signal(jobEventSignal, { jobId: 'job', type: 'crawl.failed', webhookId: ids[0] });
      const v = await wf.until('every signal', (r) => r.actedOn.at(-1) === 'job crawl.failed');
      assert.equal(v.actedOn.length, ids.length + 1);
      assert.ok(!v.actedOn.includes('job crawl.completed'));
      assert.equal(v.remembered, SEEN_WEBHOOKS_KEPT);
    });
  });
});
