// The webhook receiver against hostile deliveries: nothing unverified reaches Temporal.
// (A fake client records the signals; test/webhooks/deliveries.test.ts runs the deliveries
// of the hosted and the open-source server against a real Temporal dev server.)
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { signWebhookBody } from '../../packages/client/src/webhooks.js';
import { EVENT_ROUTES, ReplayGuard, deliveryKey, startWebhookServer, type WebhookServer } from '../../src/webhooks/index.js';

const SECRET = 'whsec-test-0123456789';
const signals: Array<{ workflowId: string; args: unknown[] }> = [];
let failSignals = false;
/** Records signals instead of sending them: these tests are about what is refused. */
const fakeClient = {
  workflow: {
    getHandle: (workflowId: string) => ({
      signal: async (_def: unknown, ...args: unknown[]) => {
        if (failSignals) throw new Error('workflow not found');
        signals.push({ workflowId, args });
      },
    }),
  },
} as unknown as Client;

let server: WebhookServer;
// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('receiver', () => {
  before(async () => {
    server = await startWebhookServer({ client: fakeClient, secret: SECRET, maxBodyBytes: 64 * 1024 });
  });
  after(() => server.close());
  beforeEach(() => {
    signals.length = 0;
    failSignals = false;
  });

  function payload(type = 'crawl.completed', extra: Record<string, unknown> = {}) {
    return JSON.stringify({ success: true, type, id: randomUUID(), webhookId: randomUUID(), data: [], metadata: { workflowId: 'wf-1' }, ...extra });
  }

  async function deliver(body: string | Buffer, headers: Record<string, string> = {}, url = server.url) {
    const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    return { status: res.statusCode, body: (await res.body.json()) as { outcome: string; reason: string } };
  }

  const signed = (body: string, secret = SECRET) => ({ 'x-service-signature': signWebhookBody(body, secret) });

  describe('accepted deliveries', () => {
    test('a signed job-level event signals the workflow named in metadata', async () => {
      const body = payload();
      const res = await deliver(body, signed(body));
      assert.equal(res.status, 200);
      assert.equal(signals.length, 1);
      assert.equal(signals[0].workflowId, 'wf-1');
      const [arg] = signals[0].args as [{ type: string }];
      assert.equal(arg.type, 'crawl.completed');
    });

    test('page events are acknowledged but never signalled', async () => {
      const body = payload('crawl.page', { data: [{ markdown: 'x', metadata: { sourceURL: 'http://a/' } }] });
      const res = await deliver(body, signed(body));
      assert.equal(res.status, 202);
      assert.equal(res.body.outcome, 'ignored');
      assert.equal(signals.length, 0);
    });

    test('a signature under X-Firecrawl-Signature (the hosted service\'s header) is accepted', async () => {
      const body = payload();
      const res = await deliver(body, { 'x-firecrawl-signature': signWebhookBody(body, SECRET) });
      assert.equal(res.status, 200);
      assert.equal(signals.length, 1);
    });

    test('with both headers, a valid signature under either one is enough', async () => {
      const body = payload();
      const res = await deliver(body, { 'x-firecrawl-signature': `sha256=${'0'.repeat(64)}`, ...signed(body) });
      assert.equal(res.status, 200);
      assert.equal(signals.length, 1);
    });

    test('unknown kinds are acknowledged and ignored, even without workflow or job members', async () => {
      for (const body of [
        payload('crawl.cancelled_by_robot'),
        payload('extract.exploded', { data: { answer: 1 } }),
        JSON.stringify({ type: 'monitor.check' }),
      ]) {
        const res = await deliver(body, signed(body));
        assert.deepEqual([res.status, res.body.outcome], [202, 'ignored'], body);
      }
      assert.equal(signals.length, 0);
    });

    test('every event kind of the hosted service: job-level ones signalled, page-level ones acknowledged', async () => {
      for (const [type, route] of Object.entries(EVENT_ROUTES)) {
        signals.length = 0;
        // The hosted service's agent and extract `data` is not a page list: any shape is accepted.
        const body = payload(type, type.startsWith('agent.') || type.startsWith('extract.') ? { data: { any: 'shape' } } : {});
        const res = await deliver(body, signed(body));
        const expected = { job: [200, 'signalled', 1], page: [202, 'ignored', 0], 'monitor-check': [202, 'ignored', 0] }[route];
        assert.deepEqual([res.status, res.body.outcome, signals.length], expected, type);
        if (route === 'job') assert.equal((signals[0].args[0] as { type: string }).type, type);
      }
    });

    test('an extract or agent event naming no job is refused as malformed (400), one naming no workflow 422', async () => {
      const noId = JSON.stringify({ success: true, type: 'agent.completed', webhookId: randomUUID(), data: {}, metadata: { workflowId: 'wf-1' } });
      const refused = await deliver(noId, signed(noId));
      assert.deepEqual([refused.status, refused.body.reason], [400, 'malformed agent.completed: id (the job id) is missing']);
      const noWorkflow = payload('extract.completed', { metadata: {} });
      assert.equal((await deliver(noWorkflow, signed(noWorkflow))).status, 422);
      assert.equal(signals.length, 0);
    });

    test('page-level events are acknowledged even naming no workflow or job (a monitor\'s pages, as the local service sends them)', async () => {
      const monitorPage = JSON.stringify({ success: true, type: 'monitor.page', id: randomUUID(), webhookId: randomUUID(), data: [{ monitorId: 'm1', url: 'http://a/' }], metadata: { series: 's1' } });
      const action = JSON.stringify({ type: 'agent.action', data: { step: 1 } });
      for (const body of [monitorPage, action]) {
        const res = await deliver(body, signed(body));
        assert.deepEqual([res.status, res.body.outcome], [202, 'ignored'], body);
      }
      assert.equal(signals.length, 0);
    });

    test('crawl.cancelled is signalled', async () => {
      const body = payload('crawl.cancelled');
      assert.equal((await deliver(body, signed(body))).status, 200);
      assert.equal((signals[0].args[0] as { type: string }).type, 'crawl.cancelled');
    });

    test('a failed signal is acknowledged and the webhookId may be delivered again', async () => {
      const body = payload();
      failSignals = true;
      assert.equal((await deliver(body, signed(body))).status, 202);
      failSignals = false;
      assert.equal((await deliver(body, signed(body))).status, 200);
      assert.equal(signals.length, 1);
    });
  });

  describe('rejected deliveries send no signal', () => {
    test('forged signature', async () => {
      const body = payload();
      const res = await deliver(body, { 'x-service-signature': `sha256=${'0'.repeat(64)}` });
      assert.equal(res.status, 401);
    });
    test('signature made with the wrong secret', async () => {
      const body = payload();
      assert.equal((await deliver(body, signed(body, 'another-secret'))).status, 401);
    });
    test('missing signature', async () => {
      assert.equal((await deliver(payload())).status, 401);
    });
    test('body changed after signing', async () => {
      const body = payload();
      const headers = signed(body);
      assert.equal((await deliver(body.replace('crawl.completed', 'crawl.failed'), headers)).status, 401);
    });
    test('truncated body (signed as sent, but not JSON)', async () => {
      const body = payload().slice(0, 40);
      const res = await deliver(body, signed(body));
      assert.equal(res.status, 400);
    });
    test('valid JSON that is not a webhook payload', async () => {
      const body = JSON.stringify({ hello: 'world' });
      assert.equal((await deliver(body, signed(body))).status, 400);
    });
    test('no workflow in metadata', async () => {
      const body = payload('crawl.completed', { metadata: {} });
      assert.equal((await deliver(body, signed(body))).status, 422);
    });
    test('replayed webhookId: acknowledged (a refusal would only bring retries) and dropped', async () => {
      const body = payload();
      assert.equal((await deliver(body, signed(body))).status, 200);
      const again = await deliver(body, signed(body));
      assert.deepEqual([again.status, again.body.outcome], [200, 'ignored']);
      assert.equal(signals.length, 1);
      signals.length = 0;
    });
    test('replayed body without webhookId (recognized by its SHA-256)', async () => {
      const body = payload('crawl.completed', { webhookId: undefined });
      assert.equal((await deliver(body, signed(body))).status, 200);
      const again = await deliver(body, signed(body));
      assert.deepEqual([again.status, again.body.outcome], [200, 'ignored']);
      assert.equal(signals.length, 1);
      signals.length = 0;
    });
    test('oversized body', async () => {
      const body = payload('crawl.completed', { padding: 'x'.repeat(100 * 1024) });
      assert.equal((await deliver(body, signed(body))).status, 413);
    });
    test('oversized chunked body (no content-length): the 413 is answered and read, then the connection closes', async () => {
      // 256 KiB in 8 KiB chunks against a 64 KiB limit: the client is still sending when the limit is passed.
      async function* chunks() {
        for (let i = 0; i < 32; i++) {
          yield Buffer.alloc(8 * 1024, 0x20);
          await new Promise((r) => setTimeout(r, 5));
        }
      }
      for (let round = 0; round < 5; round++) {
        const res = await request(server.url, { method: 'POST', body: Readable.from(chunks()), headers: { 'content-type': 'application/json' } });
        const answer = (await res.body.json()) as { outcome: string; reason: string };
        assert.equal(res.statusCode, 413);
        assert.equal(res.headers.connection, 'close');
        assert.match(answer.reason, /body over 65536 bytes/);
      }
      assert.equal(signals.length, 0);
    });
    test('oversized chunked body from a raw client still sending: the 413 arrives before the close, not a reset', async () => {
      const { port } = new URL(server.url);
      const piece = Buffer.alloc(16 * 1024, 0x20);
      const body = Buffer.concat(Array.from({ length: 16 }, () => Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])));
      for (let round = 0; round < 5; round++) {
        const reply = await new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1');
          const got: Buffer[] = [];
          socket.on('data', (d: Buffer) => got.push(d));
          socket.on('error', (err) => reject(new Error(`${String(err)} after ${Buffer.concat(got).length} bytes of answer`)));
          socket.on('end', () => resolve(Buffer.concat(got).toString('latin1')));
          socket.write(`POST /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`);
          // Paced like a client on a slower link: still sending when the limit is passed.
          void (async () => {
            for (let at = 0; at < body.length && !socket.destroyed; at += 4096) {
              socket.write(body.subarray(at, at + 4096));
              await new Promise((r) => setTimeout(r, 2));
            }
            if (!socket.destroyed) socket.write('0\r\n\r\n');
          })();
        });
        assert.match(reply, /^HTTP\/1\.1 413 /);
        assert.match(reply, /body over 65536 bytes/);
      }
    });
    test('wrong content type', async () => {
      const body = payload();
      assert.equal((await deliver(body, { ...signed(body), 'content-type': 'text/plain' })).status, 415);
    });
    test('wrong method', async () => {
      const res = await request(server.url, { method: 'GET' });
      assert.equal(res.statusCode, 405);
      await res.body.dump();
    });
    test('nothing was signalled by any rejected delivery', () => {
      assert.equal(signals.length, 0);
    });
  });

  describe('options', () => {
    test('signatureHeaders names the accepted headers (case-insensitive); others count as unsigned', async () => {
      const custom = await startWebhookServer({ client: fakeClient, secret: SECRET, signatureHeaders: ['X-Custom-Signature'] });
      try {
        const body = payload();
        const unsigned = await deliver(body, { 'x-firecrawl-signature': signWebhookBody(body, SECRET) }, custom.url);
        assert.equal(unsigned.status, 401);
        assert.match(unsigned.body.reason, /unsigned delivery.*x-custom-signature/);
        assert.equal(signals.length, 0);
        assert.equal((await deliver(body, { 'x-custom-signature': signWebhookBody(body, SECRET) }, custom.url)).status, 200);
        assert.equal(signals.length, 1);
      } finally {
        await custom.close();
      }
    });

    test('no secret: starts (allowUnsigned is no longer needed) and logs that deliveries are unauthenticated', async () => {
      const lines: string[] = [];
      const open = await startWebhookServer({ client: fakeClient, log: (line) => lines.push(line) });
      try {
        assert.equal(lines.length, 1);
        assert.match(lines[0], /no secret configured, deliveries are UNAUTHENTICATED/);
        const body = payload();
        assert.equal((await deliver(body, {}, open.url)).status, 200);
        assert.equal(signals.length, 1);
      } finally {
        await open.close();
      }
    });

    test('close() waits for a signal still in flight after its delivery was answered 202', async () => {
      // The signal settles only when the test says so: the order below holds by construction.
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => { release = r; });
      let settled = false;
      const slowClient = {
        workflow: { getHandle: () => ({ signal: async () => { await gate; settled = true; } }) },
      } as unknown as Client;
      const slow = await startWebhookServer({ client: slowClient, secret: SECRET, signalWaitMs: 50 });
      const body = payload();
      const answered = await deliver(body, signed(body), slow.url);
      assert.equal(answered.status, 202);
      assert.equal(answered.body.reason, 'signal still in flight');
      let closed = false;
      const closing = slow.close(60_000).then(() => { closed = true; });
      // The HTTP server stops at once; close() itself must still be waiting for the signal.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(closed, false, 'close() resolved before the in-flight signal settled');
      release();
      await closing;
      assert.equal(settled, true);
    });

    test('a late signal to a workflow that ended meanwhile is logged as not needed; any other late error as failed', async () => {
      const lines: string[] = [];
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => { release = r; });
      const endingClient = {
        workflow: {
          getHandle: (workflowId: string) => ({
            signal: async () => {
              await gate;
              if (workflowId === 'wf-ended') throw new WorkflowNotFoundError('workflow execution already completed', workflowId, undefined);
              throw new Error('connection refused');
            },
          }),
        },
      } as unknown as Client;
      const rx = await startWebhookServer({ client: endingClient, secret: SECRET, signalWaitMs: 20, log: (l) => lines.push(l) });
      for (const workflowId of ['wf-ended', 'wf-other']) {
        const body = payload('crawl.completed', { metadata: { workflowId } });
        assert.equal((await deliver(body, signed(body), rx.url)).status, 202);
      }
      release();
      await rx.close(60_000);
      assert.deepEqual(lines.sort(), [
        'webhook signal to wf-ended not needed: the workflow had already ended',
        'webhook signal to wf-other failed late: Error: connection refused',
      ]);
    });

    test('close() gives up on a signal that never settles after drainMs and says so', async () => {
      const lines: string[] = [];
      const stuckClient = {
        workflow: { getHandle: () => ({ signal: () => new Promise<void>(() => {}) }) },
      } as unknown as Client;
      const stuck = await startWebhookServer({ client: stuckClient, secret: SECRET, signalWaitMs: 20, log: (l) => lines.push(l) });
      const body = payload();
      assert.equal((await deliver(body, signed(body), stuck.url)).status, 202);
      await stuck.close(200);
      assert.deepEqual(lines, ['webhook receiver: closed with 1 signal(s) still in flight']);
    });

    test('with a secret, nothing is logged at start-up', async () => {
      const lines: string[] = [];
      const closed = await startWebhookServer({ client: fakeClient, secret: SECRET, log: (line) => lines.push(line) });
      await closed.close();
      assert.deepEqual(lines, []);
    });
  });

  describe('replay guard', () => {
    test('keys: webhookId when there is one, else the SHA-256 of the raw bytes', () => {
      assert.equal(deliveryKey('w-1', '{}'), 'webhookId:w-1');
      assert.equal(deliveryKey(undefined, '{}'), 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
      assert.equal(deliveryKey('', Buffer.from('{}')), deliveryKey(undefined, '{}'));
      assert.notEqual(deliveryKey(undefined, '{"a":1}'), deliveryKey(undefined, '{"a": 1}'), 'the exact bytes, not the JSON value');
    });

    test('first sighting within the TTL, forget, eviction of the oldest', () => {
      const guard = new ReplayGuard(1_000, 2);
      assert.equal(guard.firstSighting('a', 0), true);
      assert.equal(guard.firstSighting('a', 999), false);
      assert.equal(guard.firstSighting('a', 1_000), true, 'after the TTL');
      guard.forget('a');
      assert.equal(guard.firstSighting('a', 1_001), true);
      guard.firstSighting('b', 1_002);
      guard.firstSighting('c', 1_003);
      assert.equal(guard.firstSighting('a', 1_004), true, 'the oldest was evicted');
    });
  });
});
