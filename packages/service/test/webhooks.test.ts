// Webhook deliveries to a real local receiver: signature over the exact bytes, no header
// without a secret, redelivery with the same webhookId, event filter, metadata, faults.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { TeamConfig } from '../src/core/teams.js';
import type { WebhookEvent } from '../src/core/webhooks.js';
import { createTeamRegistry } from '../src/config/teams.js';
import { TeamFaultInjector } from '../src/faults/injector.js';
import { silentLogger } from '../src/http/logger.js';
import { HttpWebhookDispatcher } from '../src/webhooks/dispatcher.js';
import { isLoopbackHost } from '../src/webhooks/destination.js';
import { verifyWebhookSignature } from '../../contract/src/webhook-signature.js';
import { team } from './platform-helpers.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, unknown>;
  at: number;
}

const JOB = '0190b0a0-0000-7000-8000-000000000001';
const SECRET = 'shh-secret';

function event(type: WebhookEvent['type'], extra: Partial<WebhookEvent> = {}): WebhookEvent {
  return { type, jobId: JOB, success: true, data: [], ...extra };
}

describe('webhook dispatcher', () => {
  let receiver: Server;
  let base: string;
  let received: Received[] = [];
  /** Per path: statuses to answer in turn (then 200), or 'hang'. */
  let script: Record<string, Array<number | 'hang'>> = {};
  const signed = team('signed', { webhookSecret: SECRET });
  const plain = team('plain');
  const teams = createTeamRegistry([signed, plain]);
  let faults: TeamFaultInjector;
  let dispatcher: HttpWebhookDispatcher;

  // A generous timeout: a delivery to the local receiver never runs into it, even on a loaded machine.
  function makeDispatcher(retryDelaysMs = [30, 30], timeoutMs = 30_000, fetchImpl?: typeof fetch): HttpWebhookDispatcher {
    return new HttpWebhookDispatcher({ config: { webhook: { timeoutMs, retryDelaysMs }, allowNonLoopback: false }, faults, log: silentLogger, fetch: fetchImpl });
  }

  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const path = req.url ?? '/';
        received.push({ path, headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>, at: Date.now() });
        const next = script[path]?.shift() ?? 200;
        if (next === 'hang') return;
        res.statusCode = next;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  after(async () => {
    dispatcher.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });
  beforeEach(() => {
    received = [];
    script = {};
    faults = new TeamFaultInjector(teams, () => 0.5);
    dispatcher?.close();
    dispatcher = makeDispatcher();
  });

  test('body shape, metadata echo, custom headers, signature over the exact bytes', async () => {
    const page = { markdown: '# Hi', metadata: { sourceURL: 'http://x/a', statusCode: 200 } };
    dispatcher.send(signed, { url: `${base}/hook`, headers: { 'x-custom': 'yes' }, metadata: { run: 'r1', step: '2' } }, event('crawl.page', { data: [page] }));
    await dispatcher.idle();
    assert.equal(received.length, 1);
    const [delivery] = received;
    assert.deepEqual(Object.keys(delivery.body), ['success', 'type', 'id', 'webhookId', 'data', 'metadata']);
    assert.equal(delivery.body.type, 'crawl.page');
    assert.equal(delivery.body.id, JOB);
    assert.match(String(delivery.body.webhookId), /^[0-9a-f-]{36}$/);
    assert.deepEqual(delivery.body.data, [page]);
    assert.deepEqual(delivery.body.metadata, { run: 'r1', step: '2' });
    assert.equal(delivery.headers['x-custom'], 'yes');
    assert.match(String(delivery.headers['content-type']), /application\/json/);
    const expected = `sha256=${createHmac('sha256', SECRET).update(delivery.raw).digest('hex')}`;
    assert.equal(delivery.headers['x-service-signature'], expected);
    assert.equal(delivery.raw.toString('utf8'), JSON.stringify(delivery.body));
    assert.ok(verifyWebhookSignature(delivery.raw, String(delivery.headers['x-service-signature']), SECRET));
    assert.ok(!verifyWebhookSignature(delivery.raw, String(delivery.headers['x-service-signature']), 'other'));
  });

  test('no signature header without a secret; a URL string spec gets empty metadata', async () => {
    dispatcher.send(plain, `${base}/plain`, event('batch_scrape.completed'));
    await dispatcher.idle();
    assert.equal(received.length, 1);
    assert.equal(received[0].headers['x-service-signature'], undefined);
    assert.deepEqual(received[0].body.metadata, {});
  });

  test('failed page events carry error and success false', async () => {
    dispatcher.send(plain, `${base}/p`, event('crawl.page', { success: false, error: 'HTTP 500', data: [{ metadata: { sourceURL: 'http://x/b' } }] }));
    await dispatcher.idle();
    assert.deepEqual(Object.keys(received[0].body), ['success', 'type', 'id', 'webhookId', 'data', 'error', 'metadata']);
    assert.equal(received[0].body.success, false);
    assert.equal(received[0].body.error, 'HTTP 500');
  });

  test('failed deliveries are retried with the same webhookId and bytes', async () => {
    script['/flaky'] = [500, 503];
    dispatcher.send(signed, `${base}/flaky`, event('crawl.completed'));
    await dispatcher.idle();
    assert.equal(received.length, 3);
    assert.equal(new Set(received.map((r) => r.body.webhookId)).size, 1);
    assert.equal(new Set(received.map((r) => r.raw.toString('hex'))).size, 1);
    assert.equal(new Set(received.map((r) => r.headers['x-service-signature'])).size, 1);
    assert.ok(received[1].at - received[0].at >= 25, 'waits the configured backoff');
    assert.deepEqual(dispatcher.stats, { delivered: 1, failedAttempts: 2, dropped: 0, gaveUp: 0 });
  });

  test('gives up after the last retry; a hanging receiver times out', async () => {
    dispatcher.close();
    dispatcher = makeDispatcher([20]);
    script['/down'] = [500, 500, 500];
    dispatcher.send(plain, `${base}/down`, { ...event('crawl.completed'), jobId: 'job-down' });
    await dispatcher.idle();
    assert.equal(received.filter((r) => r.path === '/down').length, 2);
    assert.deepEqual(dispatcher.stats, { delivered: 0, failedAttempts: 2, dropped: 0, gaveUp: 1 });

    // The timeout must cut the hung attempt, yet let the retry's answer through on a loaded machine.
    dispatcher.close();
    dispatcher = makeDispatcher([20], 2000);
    script['/hang'] = ['hang'];
    dispatcher.send(plain, `${base}/hang`, { ...event('crawl.completed'), jobId: 'job-hang' });
    await dispatcher.idle();
    assert.equal(received.filter((r) => r.path === '/hang').length, 2);
    assert.deepEqual(dispatcher.stats, { delivered: 1, failedAttempts: 1, dropped: 0, gaveUp: 0 });
  });

  test('event filter by suffix', async () => {
    const spec = { url: `${base}/filtered`, events: ['completed' as const, 'failed' as const] };
    for (const type of ['crawl.started', 'crawl.page', 'crawl.completed', 'batch_scrape.page', 'batch_scrape.failed'] as const) {
      dispatcher.send(plain, spec, event(type));
    }
    await dispatcher.idle();
    assert.deepEqual(received.map((r) => r.body.type), ['crawl.completed', 'batch_scrape.failed']);
  });

  test("one job's deliveries arrive in the order they were sent", async () => {
    script['/ordered'] = [200];
    for (const type of ['crawl.started', 'crawl.page', 'crawl.page', 'crawl.completed'] as const) {
      dispatcher.send(plain, `${base}/ordered`, event(type));
    }
    await dispatcher.idle();
    assert.deepEqual(received.map((r) => r.body.type), ['crawl.started', 'crawl.page', 'crawl.page', 'crawl.completed']);
  });

  test('only loopback destinations', async () => {
    let fetched = 0;
    const guarded = new HttpWebhookDispatcher({
      config: { webhook: { timeoutMs: 100, retryDelaysMs: [] }, allowNonLoopback: false },
      faults,
      log: silentLogger,
      fetch: () => { fetched++; return Promise.resolve(new Response('ok')); },
    });
    guarded.send(plain, 'http://example.com/hook', event('crawl.completed'));
    guarded.send(plain, 'ftp://127.0.0.1/hook', event('crawl.completed'));
    guarded.send(plain, 'http://[::1]:9/hook', event('crawl.completed'));
    await guarded.idle();
    assert.equal(fetched, 1);
    guarded.close();
    assert.ok(isLoopbackHost('localhost') && isLoopbackHost('127.0.0.9') && isLoopbackHost('[::1]'));
    assert.ok(!isLoopbackHost('10.0.0.1') && !isLoopbackHost('example.com'));
  });

  test('faults: drop rate and delay', async () => {
    faults.set('plain', { webhookDropRate: 0.9 }); // the injected random() is 0.5: always dropped
    dispatcher.send(plain, `${base}/dropped`, event('crawl.completed'));
    await dispatcher.idle();
    assert.equal(received.length, 0);
    assert.equal(dispatcher.stats.dropped, 1);

    faults.set('plain', { webhookDelayMs: 120 });
    const start = Date.now();
    dispatcher.send(plain, `${base}/delayed`, event('crawl.completed'));
    await dispatcher.idle();
    assert.equal(received.length, 1);
    assert.ok(received[0].at - start >= 110);
  });

  test('close() stops pending retries', async () => {
    dispatcher.close();
    // First attempts of one job are chained: the job's second event is posted in the same turn
    // as the first one's retry is scheduled, so closing there catches that retry while it waits.
    const posted: string[] = [];
    dispatcher = makeDispatcher([150], 30_000, (url, init) => {
      posted.push(new URL(String(url)).pathname);
      if (posted.at(-1) === '/close-now') dispatcher.close();
      return fetch(url, init);
    });
    script['/retry-later'] = [500];
    dispatcher.send(plain, `${base}/retry-later`, event('crawl.completed'));
    dispatcher.send(plain, `${base}/close-now`, event('crawl.completed'));
    await dispatcher.idle();
    assert.deepEqual(posted, ['/retry-later', '/close-now']);
    assert.equal(dispatcher.stats.failedAttempts, 1, 'the retry was pending when closed');
    // A timer created now fires after the retry's would have (timers fire in expiry order).
    await new Promise((r) => setTimeout(r, 300));
    dispatcher.send(plain, `${base}/after-close`, event('crawl.completed'));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(posted, ['/retry-later', '/close-now'], 'no retry and no send after close');
    assert.equal(received.filter((r) => r.path === '/retry-later').length, 1);
  });
});

describe('webhooks through the service context', () => {
  test('ctx.webhooks delivers with the team secret', async () => {
    const { startLocalService } = await import('../src/app.js');
    const { stubScrapeEngine } = await import('./platform-helpers.js');
    const bodies: Array<{ raw: Buffer; signature?: string }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => { bodies.push({ raw: Buffer.concat(chunks), signature: req.headers['x-service-signature'] as string | undefined }); res.end(); });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/h`;
    const owner: TeamConfig = team('owner', { webhookSecret: SECRET });
    const svc = await startLocalService({ teams: [owner], scrapeEngine: stubScrapeEngine(), logger: silentLogger, site: false, config: { webhook: { timeoutMs: 30_000, retryDelaysMs: [10] } } });
    try {
      svc.context.webhooks.send(owner, { url: hook, metadata: { a: '1' } }, event('batch_scrape.started'));
      await svc.webhooks.idle();
      assert.equal(bodies.length, 1);
      assert.ok(verifyWebhookSignature(bodies[0].raw, bodies[0].signature, SECRET));
    } finally {
      await svc.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
