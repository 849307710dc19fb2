// Deliveries as users receive them, against a real Temporal dev server: the hosted service's
// (signed under X-Firecrawl-Signature, with webhookId and X-Firecrawl-* headers) and the
// open-source server's (unsigned, no webhookId). A recorder workflow lists every signal it
// got, so each test asserts exactly what reached Temporal. "Nothing else arrived" is made
// deterministic with a sentinel: signals are sent one after another, so once a valid
// delivery sent last has been recorded, everything sent before it has been decided.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { signWebhookBody } from '../../packages/client/src/webhooks.js';
import { startWebhookServer, type WebhookDecision, type WebhookServer } from '../../src/webhooks/index.js';
import type { JobEventSignal } from '../../src/workflows/definitions.js';
import { startTestTemporal } from '../helpers/temporal.js';
import { hosted, openSource, SAMPLES, type Delivery } from './fixtures.js';
import { receivedQuery, recorderWorkflow } from './recorder-workflow.js';

const SECRET = `whsec-${randomUUID()}`;
const TASK_QUEUE = 'webhook-deliveries';
const DEADLINE_MS = 30_000;

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
/** Has a secret: signatures required. */
let signedRx: WebhookServer;
/** No secret: deliveries accepted as hints. */
let openRx: WebhookServer;
const openLog: string[] = [];
const decisions: WebhookDecision[] = [];

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('deliveries', () => {
  before(async () => {
    env = await startTestTemporal();
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue: TASK_QUEUE,
      workflowsPath: fileURLToPath(new URL('./recorder-workflow.ts', import.meta.url)),
    });
    running = worker.run();
    // A generous signal wait: every answer below is given after the signal was accepted.
    signedRx = await startWebhookServer({ client: env.client, secret: SECRET, signalWaitMs: DEADLINE_MS, onDecision: (d) => decisions.push(d) });
    openRx = await startWebhookServer({ client: env.client, signalWaitMs: DEADLINE_MS, log: (line) => openLog.push(line), onDecision: (d) => decisions.push(d) });
  });

  after(async () => {
    await signedRx?.close();
    await openRx?.close();
    if (worker) {
      worker.shutdown();
      await running;
    }
    await env?.teardown();
  });

  async function deliver(rx: WebhookServer, d: Delivery) {
    const res = await request(rx.url, { method: 'POST', body: d.body, headers: d.headers });
    return { status: res.statusCode, body: (await res.body.json()) as { outcome: string; reason: string } };
  }

  async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + DEADLINE_MS;
    let last: T | undefined;
    let lastError: unknown;
    for (;;) {
      try {
        last = await read();
        if (done(last)) return last;
      } catch (err) {
        lastError = err; // the workflow may not have run its first task yet
      }
      if (Date.now() > deadline) assert.fail(`${what}: not within ${DEADLINE_MS} ms (last: ${JSON.stringify(last)}; error: ${String(lastError)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  interface Recorder {
    workflowId: string;
    received(): Promise<JobEventSignal[]>;
    /** Waits until `count` signals are recorded. */
    until(count: number): Promise<JobEventSignal[]>;
    /** Sends a valid delivery last and waits for it: the signals recorded before it. */
    settle(): Promise<JobEventSignal[]>;
  }

  async function recorder(): Promise<Recorder> {
    const workflowId = `webhook-recorder-${randomUUID()}`;
    const handle = await env.client.workflow.start(recorderWorkflow, { taskQueue: TASK_QUEUE, workflowId });
    const received = () => handle.query(receivedQuery);
    await waitFor(`recorder ${workflowId} answers`, received, () => true);
    return {
      workflowId,
      received,
      until: (count) => waitFor(`${count} signals on ${workflowId}`, received, (list) => list.length >= count),
      async settle() {
        const sentinel = openSource({ type: 'batch_scrape.completed', workflowId, jobId: `sentinel-${randomUUID()}` });
        assert.equal((await deliver(openRx, sentinel)).status, 200);
        const list = await waitFor(`sentinel on ${workflowId}`, received, (l) => l.some((e) => e.jobId === sentinel.jobId));
        assert.equal(list.at(-1)?.jobId, sentinel.jobId, 'the sentinel is the last signal');
        return list.slice(0, -1);
      },
    };
  }

  /** A copy of a sample aimed at `workflowId`, signed with `secret` when given. */
  function sample(d: Delivery, workflowId: string, secret?: string): Delivery {
    const body = d.body.replace('"workflowId":"wf-recorded"', JSON.stringify({ workflowId }).slice(1, -1));
    const headers = { ...d.headers };
    if (secret) headers['x-firecrawl-signature'] = signWebhookBody(body, secret);
    return { body, headers };
  }

  describe('hosted service deliveries (X-Firecrawl-Signature, webhookId)', () => {
    test('a signed job-level event becomes a signal carrying its job, kind and webhookId', async () => {
      const wf = await recorder();
      const d = hosted({ type: 'crawl.started', workflowId: wf.workflowId }, SECRET);
      const res = await deliver(signedRx, d);
      assert.deepEqual([res.status, res.body.outcome], [200, 'signalled']);
      assert.deepEqual(await wf.until(1), [{ jobId: d.jobId, type: 'crawl.started', webhookId: d.webhookId }]);
    });

    test('the samples: every one acknowledged, the job-level ones signalled (crawl.cancelled included)', async () => {
      const wf = await recorder();
      const answers: Record<string, [number, string]> = {};
      for (const [name, d] of Object.entries(SAMPLES)) {
        const isHosted = name.startsWith('hosted');
        const res = await deliver(isHosted ? signedRx : openRx, sample(d, wf.workflowId, isHosted ? SECRET : undefined));
        answers[name] = [res.status, res.body.outcome];
      }
      assert.deepEqual(answers, {
        hostedCrawlStarted: [200, 'signalled'],
        hostedCrawlPageFailed: [202, 'ignored'],
        hostedCrawlCancelled: [200, 'signalled'],
        hostedExtractCompleted: [200, 'signalled'],
        openSourceCrawlCompleted: [200, 'signalled'],
        openSourceBatchPage: [202, 'ignored'],
      });
      assert.deepEqual(await wf.settle(), [
        { jobId: '0198f2a1-5c3e-7b9a-8d41-2f6e0c9b7a10', type: 'crawl.started', webhookId: '0198f2a1-5c40-7e12-9b3a-6d5c4e3f2a18' },
        { jobId: '0198f2a1-5c3e-7b9a-8d41-2f6e0c9b7a10', type: 'crawl.cancelled', webhookId: '0198f2a1-7a09-7f3d-8c62-0b1e5a4d9c27' },
        { jobId: '0198f2b0-0a1b-7c2d-9e3f-4a5b6c7d8e9f', type: 'extract.completed', webhookId: '0198f2b0-0b2c-7d3e-8f4a-5b6c7d8e9fa0' },
        { jobId: '6c1f3e2a-9b8d-4c7e-a5f6-0e1d2c3b4a59', type: 'crawl.completed' },
      ]);
    });

    test('a redelivery with the same webhookId is acknowledged and dropped', async () => {
      const wf = await recorder();
      const d = hosted({ type: 'batch_scrape.completed', workflowId: wf.workflowId }, SECRET);
      assert.equal((await deliver(signedRx, d)).status, 200);
      const again = await deliver(signedRx, d);
      assert.deepEqual([again.status, again.body.outcome], [200, 'ignored']);
      assert.match(again.body.reason, /duplicate delivery \(same webhookId\)/);
      assert.deepEqual(await wf.settle(), [{ jobId: d.jobId, type: 'batch_scrape.completed', webhookId: d.webhookId }]);
    });

    test('forged, tampered and unsigned deliveries are refused when a secret is set', async () => {
      const wf = await recorder();
      const forged = hosted({ type: 'crawl.completed', workflowId: wf.workflowId }, 'another-secret');
      const zeros = hosted({ type: 'crawl.completed', workflowId: wf.workflowId });
      zeros.headers['x-firecrawl-signature'] = `sha256=${'0'.repeat(64)}`;
      const signed = hosted({ type: 'crawl.started', workflowId: wf.workflowId }, SECRET);
      const tampered = { body: signed.body.replace('crawl.started', 'crawl.completed'), headers: signed.headers };
      const unsigned = hosted({ type: 'crawl.completed', workflowId: wf.workflowId });
      for (const [name, d] of Object.entries({ forged, zeros, tampered, unsigned })) {
        const res = await deliver(signedRx, d);
        assert.deepEqual([res.status, res.body.outcome], [401, 'rejected'], name);
      }
      assert.match((await deliver(signedRx, unsigned)).body.reason, /unsigned delivery/);
      assert.deepEqual(await wf.settle(), []);
    });

    test('a signature under X-Service-Signature (the reference\'s header) is accepted too', async () => {
      const wf = await recorder();
      const d = hosted({ type: 'crawl.completed', workflowId: wf.workflowId });
      d.headers['x-service-signature'] = signWebhookBody(d.body, SECRET);
      assert.equal((await deliver(signedRx, d)).status, 200);
      assert.deepEqual(await wf.until(1), [{ jobId: d.jobId, type: 'crawl.completed', webhookId: d.webhookId }]);
    });
  });

  describe('open-source server deliveries (unsigned, no webhookId)', () => {
    test('accepted without a secret and signalled without a webhookId', async () => {
      const wf = await recorder();
      const d = openSource({ type: 'crawl.completed', workflowId: wf.workflowId });
      const res = await deliver(openRx, d);
      assert.deepEqual([res.status, res.body.outcome], [200, 'signalled']);
      assert.deepEqual(await wf.until(1), [{ jobId: d.jobId, type: 'crawl.completed' }]);
    });

    test('the same body again is dropped (SHA-256 of the body); another event of the job is not', async () => {
      const wf = await recorder();
      const started = openSource({ type: 'crawl.started', workflowId: wf.workflowId });
      const completed = openSource({ type: 'crawl.completed', workflowId: wf.workflowId, jobId: started.jobId });
      assert.equal((await deliver(openRx, started)).status, 200);
      const again = await deliver(openRx, started);
      assert.deepEqual([again.status, again.body.outcome], [200, 'ignored']);
      assert.match(again.body.reason, /duplicate delivery \(same body\)/);
      assert.equal((await deliver(openRx, completed)).status, 200);
      assert.equal((await deliver(openRx, completed)).body.outcome, 'ignored');
      assert.deepEqual(await wf.settle(), [
        { jobId: started.jobId, type: 'crawl.started' },
        { jobId: started.jobId, type: 'crawl.completed' },
      ]);
    });

    test('refused (401) by a receiver that has a secret', async () => {
      const wf = await recorder();
      const res = await deliver(signedRx, openSource({ type: 'crawl.completed', workflowId: wf.workflowId }));
      assert.deepEqual([res.status, res.body.outcome], [401, 'rejected']);
      assert.deepEqual(await wf.settle(), []);
    });

    test('without a secret, hosted-shape deliveries are accepted signed or not, and the start-up line says so', async () => {
      const wf = await recorder();
      const signed = hosted({ type: 'crawl.started', workflowId: wf.workflowId }, SECRET);
      const unsigned = hosted({ type: 'crawl.completed', workflowId: wf.workflowId, jobId: signed.jobId });
      assert.equal((await deliver(openRx, signed)).status, 200);
      assert.equal((await deliver(openRx, unsigned)).status, 200);
      assert.deepEqual(await wf.settle(), [
        { jobId: signed.jobId, type: 'crawl.started', webhookId: signed.webhookId },
        { jobId: signed.jobId, type: 'crawl.completed', webhookId: unsigned.webhookId },
      ]);
      assert.ok(openLog.some((line) => /no secret configured, deliveries are UNAUTHENTICATED/.test(line)), openLog.join('\n'));
    });
  });

  describe('the 2026 event kinds (extract, agent, monitor)', () => {
    test('job-level ones are signalled by both receivers, whatever their data; agent.action and monitor.page acknowledged', async () => {
      const wf = await recorder();
      const jobLevel: Array<{ type: string; data?: unknown }> = [
        { type: 'extract.started' },
        { type: 'extract.completed', data: { answer: 42 } },
        { type: 'extract.failed', data: null },
        { type: 'agent.started' },
        { type: 'agent.completed', data: { result: 'text' } },
        { type: 'agent.failed', data: null },
        { type: 'agent.cancelled' },
      ];
      const expected: JobEventSignal[] = [];
      for (const { type, data } of jobLevel) {
        const h = hosted({ type, data, workflowId: wf.workflowId }, SECRET);
        const o = openSource({ type, data, workflowId: wf.workflowId });
        for (const [rx, d, label] of [[signedRx, h, 'signed'], [openRx, o, 'open']] as const) {
          const res = await deliver(rx, d);
          assert.deepEqual([res.status, res.body.outcome], [200, 'signalled'], `${type} ${label}`);
        }
        expected.push({ jobId: h.jobId, type, webhookId: h.webhookId }, { jobId: o.jobId, type });
      }
      for (const { type, data } of [{ type: 'agent.action', data: { action: 'read', url: 'https://example.com/' } }, { type: 'monitor.page', data: [{ url: 'https://example.com/' }] }]) {
        const res = await deliver(signedRx, hosted({ type, data, workflowId: wf.workflowId }, SECRET));
        assert.deepEqual([res.status, res.body.outcome, res.body.reason], [202, 'ignored', 'page events are not signalled'], type);
      }
      assert.deepEqual(await wf.settle(), expected);
    });
  });

  describe('unknown event kinds', () => {
    test('are acknowledged (2xx) and ignored by both receivers, whatever their data', async () => {
      const wf = await recorder();
      const kinds: Array<{ type: string; data?: unknown }> = [
        { type: 'agent.exploded', data: { result: 'text' } },
        { type: 'extract.paused', data: null },
        { type: 'crawl.exploded' },
        { type: 'batch_scrape.paused', data: 'x' },
        { type: 'something-else' },
      ];
      for (const { type, data } of kinds) {
        for (const [rx, d] of [
          [signedRx, hosted({ type, data, workflowId: wf.workflowId }, SECRET)],
          [openRx, openSource({ type, data, workflowId: wf.workflowId })],
        ] as const) {
          const res = await deliver(rx, d);
          assert.deepEqual([res.status, res.body.outcome], [202, 'ignored'], `${type} on ${rx === signedRx ? 'signed' : 'open'}`);
        }
      }
      // A kind without the job members (no id, success, data or metadata) is acknowledged too.
      const bare = JSON.stringify({ type: 'monitor.check', monitorId: 'm1' });
      const res = await deliver(signedRx, { body: bare, headers: { 'content-type': 'application/json', 'x-firecrawl-signature': signWebhookBody(bare, SECRET) } });
      assert.deepEqual([res.status, res.body.outcome], [202, 'ignored']);
      assert.deepEqual(await wf.settle(), []);
      assert.ok(decisions.some((d) => d.type === 'monitor.check' && /not handled/.test(d.reason)));
    });
  });
});
