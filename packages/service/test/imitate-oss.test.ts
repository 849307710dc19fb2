// `service.imitate: "firecrawl-oss"`: real HTTP against the service answering as the
// open-source server (contract-notes "Observed on the open-source server"), and the same
// requests against a default service, whose answers still follow the reference.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createServiceApp, type ServiceApp } from '../src/app.js';
import type { ScrapeEngine } from '../src/core/scrape.js';
import type { ServiceConfig } from '../src/core/service.js';
import { parseConfig } from '../src/config/load.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { silentLogger } from '../src/http/logger.js';
import { listen, type ListeningServer } from '../src/http/server.js';
import { createHttpScrapeEngine } from '../src/scrape/index.js';
import { SIGNATURE_HEADER } from '../../contract/src/webhook-signature.js';
import { call, team, type ApiAnswer } from './platform-helpers.js';

const DEADLINE_MS = 60_000;
const POLL_MS = 50;

/** The real HTTP engine behind a gate: hold() keeps every page waiting until released (or aborted). */
function gatedEngine(): ScrapeEngine & { hold(): () => void } {
  const inner = createHttpScrapeEngine({ cache: false });
  let gate: Promise<void> = Promise.resolve();
  return {
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => { release = resolve; });
      return () => { gate = Promise.resolve(); release(); };
    },
    async scrape(url, options, ctx) {
      const signal = ctx.signal;
      await Promise.race([
        gate,
        new Promise<void>((_, reject) => {
          if (!signal) return;
          if (signal.aborted) reject(new Error('aborted'));
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
      ]);
      return inner.scrape(url, options, ctx);
    },
    close: () => inner.close(),
  };
}

interface Service {
  app: ServiceApp;
  server: ListeningServer;
  engine: ReturnType<typeof gatedEngine>;
  url: string;
}

async function startService(config: Partial<ServiceConfig>): Promise<Service> {
  const engine = gatedEngine();
  const app = createServiceApp({
    teams: [team('a', { credits: 100_000, webhookSecret: 'hook-secret' })],
    config: { ...config, webhook: { timeoutMs: 30_000, retryDelaysMs: [100, 100] } },
    scrapeEngine: engine,
    logger: silentLogger,
  });
  const server = await listen(app.listener);
  return { app, server, engine, url: server.url };
}

async function stopService(s: Service | undefined): Promise<void> {
  if (!s) return;
  await s.server.close();
  await s.app.close();
}

/** Polls until `check` returns a value (not undefined) or the deadline passes. */
async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Polls a job's status until it has ended; answers the last status read. */
function untilEnded(s: Service, path: string): Promise<ApiAnswer> {
  return eventually(`${path} to end`, async () => {
    const answer = await call(s.url, 'GET', path);
    assert.equal(answer.status, 200, answer.text);
    return answer.body.status === 'scraping' ? undefined : answer;
  });
}

interface Delivery { headers: IncomingHttpHeaders; body: Record<string, unknown> }

describe('service.imitate "firecrawl-oss"', () => {
  let site: DemoSite;
  let oss: Service | undefined;
  let ref: Service | undefined;
  let receiver: Server;
  let hookUrl: string;
  const deliveries: Delivery[] = [];

  before(async () => {
    site = await startDemoSite({ port: 0, pages: 8, seed: 7 });
    oss = await startService({ imitate: 'firecrawl-oss' });
    ref = await startService({});
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  after(async () => {
    await Promise.all([stopService(oss), stopService(ref)]);
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await site.close();
  });

  const svc = (s: Service | undefined): Service => {
    assert.ok(s, 'service started');
    return s;
  };

  test('the config file and parseConfig accept service.imitate; other values are refused', () => {
    const loaded = parseConfig({ teams: [{ id: 'a', apiKeys: ['k'] }], service: { imitate: 'firecrawl-oss' } });
    assert.equal(loaded.config.imitate, 'firecrawl-oss');
    assert.throws(() => parseConfig({ teams: [{ id: 'a', apiKeys: ['k'] }], service: { imitate: 'other' } }), /service\.imitate/);
  });

  const id = randomUUID();
  const missing: Array<[string, string]> = [
    ['POST', '/v2/browser'],
    ['GET', '/v2/browser'],
    ['DELETE', `/v2/browser/${id}`],
    ['DELETE', '/v2/browser'],
    ['POST', `/v2/browser/${id}/execute`],
    ['POST', `/v2/scrape/${id}/interact`],
    ['DELETE', `/v2/scrape/${id}/interact`],
    ['POST', '/v2/support/ask'],
    ['GET', '/v2/team/activity'],
    ['GET', '/v2/team/credit-usage/historical'],
    ['GET', `/v2/batch/scrape/${id}/errors`],
    ['POST', '/v2/agent'],
    ['GET', `/v2/agent/${id}`],
    ['DELETE', `/v2/agent/${id}`],
    ['POST', '/v2/parse'],
  ];

  test('routes that server lacks answer express\'s HTML 404, with or without a key', async () => {
    for (const [method, path] of missing) {
      for (const key of [undefined, null]) {
        const answer = await call(svc(oss).url, method, path, { key, body: method === 'POST' ? {} : undefined });
        assert.equal(answer.status, 404, `${method} ${path}`);
        assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, `${method} ${path}`);
        assert.ok(answer.text.includes(`<pre>Cannot ${method} ${path}</pre>`), answer.text);
        assert.equal(answer.headers.get('x-request-id'), null);
      }
    }
    // Routes that server has are still there.
    assert.equal((await call(svc(oss).url, 'GET', '/v2/team/credit-usage')).status, 200);
    const crawlErrors = await call(svc(oss).url, 'GET', `/v2/crawl/${id}/errors`);
    assert.equal(crawlErrors.status, 404);
    assert.deepEqual(crawlErrors.body, { success: false, error: 'Job not found' });
  });

  test('unknown job: cancel answers { error } without success, status { success:false, error }; no x-request-id', async () => {
    for (const base of ['/v2/crawl', '/v2/batch/scrape']) {
      const cancel = await call(svc(oss).url, 'DELETE', `${base}/${id}`);
      assert.equal(cancel.status, 404);
      assert.deepEqual(cancel.body, { error: 'Job not found' });
      assert.equal(cancel.headers.get('x-request-id'), null);
      const status = await call(svc(oss).url, 'GET', `${base}/${id}`);
      assert.equal(status.status, 404);
      assert.deepEqual(status.body, { success: false, error: 'Job not found' });
      assert.equal(status.headers.get('x-request-id'), null);
    }
  });

  test('batch status ignores skip/limit: running → data [] and next ?skip=0&limit=1; ended → all documents, no next', async () => {
    const s = svc(oss);
    const release = s.engine.hold();
    let jobId: string;
    try {
      const urls = ['/', '/about', '/blog'].map((p) => `${site.url}${p}`);
      const started = await call(s.url, 'POST', '/v2/batch/scrape', { body: { urls } });
      assert.equal(started.status, 200, started.text);
      jobId = started.body.id as string;
      const running = await call(s.url, 'GET', `/v2/batch/scrape/${jobId}?skip=1&limit=2`);
      assert.equal(running.status, 200);
      assert.equal(running.body.status, 'scraping');
      assert.deepEqual(running.body.data, []);
      assert.equal(running.body.next, `${s.url}/v2/batch/scrape/${jobId}?skip=0&limit=1`);
    } finally {
      release();
    }
    await untilEnded(s, `/v2/batch/scrape/${jobId}`);
    const ended = await call(s.url, 'GET', `/v2/batch/scrape/${jobId}?skip=2&limit=1`);
    assert.equal(ended.body.status, 'completed');
    assert.equal(ended.body.data.length, 3);
    assert.equal(ended.body.completed, 3);
    assert.ok(!('next' in ended.body), 'no next member once ended');
  });

  test('crawl: status ignores skip/limit once completed; webhooks carry no webhookId and no signature', async () => {
    const s = svc(oss);
    const before = deliveries.length;
    const started = await call(s.url, 'POST', '/v2/crawl', { body: { url: `${site.url}/`, limit: 4, webhook: hookUrl } });
    assert.equal(started.status, 200, started.text);
    const jobId = started.body.id as string;
    const ended = await untilEnded(s, `/v2/crawl/${jobId}`);
    assert.equal(ended.body.status, 'completed');
    const page = await call(s.url, 'GET', `/v2/crawl/${jobId}?skip=1&limit=1`);
    assert.ok(page.body.completed >= 2, page.text);
    assert.equal(page.body.data.length, page.body.completed);
    assert.ok(!('next' in page.body));

    const mine = await eventually('crawl.completed delivery', () => {
      const got = deliveries.slice(before).filter((d) => d.body.id === jobId);
      return got.some((d) => d.body.type === 'crawl.completed') ? got : undefined;
    });
    assert.ok(mine.some((d) => d.body.type === 'crawl.started'));
    assert.ok(mine.some((d) => d.body.type === 'crawl.page'));
    for (const d of mine) {
      assert.ok(!('webhookId' in d.body), JSON.stringify(d.body));
      assert.equal(d.headers[SIGNATURE_HEADER.toLowerCase()], undefined);
      assert.deepEqual(Object.keys(d.body).filter((k) => k !== 'error'), ['success', 'type', 'id', 'data', 'metadata']);
    }
  });

  test('DELETE of a completed crawl answers 200 { status: "cancelled" }; the crawl then reads cancelled', async () => {
    const s = svc(oss);
    const started = await call(s.url, 'POST', '/v2/crawl', { body: { url: `${site.url}/`, limit: 2 } });
    const jobId = started.body.id as string;
    const ended = await untilEnded(s, `/v2/crawl/${jobId}`);
    assert.equal(ended.body.status, 'completed');
    const cancel = await call(s.url, 'DELETE', `/v2/crawl/${jobId}`);
    assert.equal(cancel.status, 200);
    assert.deepEqual(cancel.body, { status: 'cancelled' });
    const after = await call(s.url, 'GET', `/v2/crawl/${jobId}`);
    assert.equal(after.body.status, 'cancelled');
  });

  test('map links carry only url, without trailing slashes; the root is the bare origin', async () => {
    const answer = await call(svc(oss).url, 'POST', '/v2/map', { body: { url: `${site.url}/` } });
    assert.equal(answer.status, 200, answer.text);
    const links = answer.body.links as Array<Record<string, unknown>>;
    assert.ok(links.length > 1);
    for (const link of links) {
      assert.deepEqual(Object.keys(link), ['url']);
      assert.ok(!(link.url as string).endsWith('/'), String(link.url));
    }
    assert.ok(links.some((l) => l.url === site.url), 'root as http://host:port');
    assert.equal(new Set(links.map((l) => l.url)).size, links.length);
  });

  test('x-idempotency-key: a UUID fails crawl with 500 UNKNOWN_ERROR every time, a non-UUID answers 409 without id; batch ignores it', async () => {
    const s = svc(oss);
    const key = randomUUID();
    const crawlsStarted = () => s.app.context.activity.list('a', { endpoint: 'crawl', limit: 100 }).data.length;
    const crawlsBefore = crawlsStarted();
    for (let i = 0; i < 2; i++) {
      const answer = await call(s.url, 'POST', '/v2/crawl', { body: { url: `${site.url}/`, limit: 1 }, headers: { 'x-idempotency-key': key } });
      assert.equal(answer.status, 500);
      assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'error', 'success']);
      assert.equal(answer.body.success, false);
      assert.equal(answer.body.code, 'UNKNOWN_ERROR');
      assert.match(answer.body.error as string, /exception ID/);
      assert.equal(answer.headers.get('x-request-id'), null);
    }
    assert.equal(crawlsStarted(), crawlsBefore, 'no crawl started');

    const bad = await call(s.url, 'POST', '/v2/crawl', { body: { url: `${site.url}/`, limit: 1 }, headers: { 'x-idempotency-key': 'not-a-uuid' } });
    assert.equal(bad.status, 409);
    assert.ok(!('id' in bad.body));
    assert.equal(bad.body.error, 'Idempotency key already used');

    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await call(s.url, 'POST', '/v2/batch/scrape', { body: { urls: [`${site.url}/`] }, headers: { 'x-idempotency-key': key } });
      assert.equal(answer.status, 200, answer.text);
      ids.push(answer.body.id as string);
    }
    assert.notEqual(ids[0], ids[1]);
    for (const jobId of ids) await untilEnded(s, `/v2/batch/scrape/${jobId}`);
  });

  test('default mode: the same requests still follow the reference', async () => {
    const s = svc(ref);
    // Routes present, JSON errors with x-request-id.
    const activity = await call(s.url, 'GET', '/v2/team/activity');
    assert.equal(activity.status, 200);
    assert.ok(activity.headers.get('x-request-id'));
    const historical = await call(s.url, 'GET', '/v2/team/credit-usage/historical');
    assert.equal(historical.status, 200);
    const batchErrors = await call(s.url, 'GET', `/v2/batch/scrape/${id}/errors`);
    assert.equal(batchErrors.status, 404);
    assert.equal(batchErrors.body.code, 'NOT_FOUND');
    assert.ok(batchErrors.headers.get('x-request-id'));
    const unknownRoute = await call(s.url, 'POST', '/v2/nowhere', { body: {} });
    assert.equal(unknownRoute.status, 404);
    assert.match(unknownRoute.headers.get('content-type') ?? '', /json/);
    const unknownCancel = await call(s.url, 'DELETE', `/v2/crawl/${id}`);
    assert.equal(unknownCancel.body.success, false);
    assert.equal(unknownCancel.body.code, 'NOT_FOUND');

    // Status paging honours skip/limit, and a running job's page has its documents so far.
    const release = s.engine.hold();
    let batchId: string;
    try {
      const started = await call(s.url, 'POST', '/v2/batch/scrape', { body: { urls: ['/', '/about', '/blog'].map((p) => `${site.url}${p}`) } });
      batchId = started.body.id as string;
      const running = await call(s.url, 'GET', `/v2/batch/scrape/${batchId}`);
      assert.equal(running.body.status, 'scraping');
      assert.equal(running.body.next, `${s.url}/v2/batch/scrape/${batchId}?skip=0`);
    } finally {
      release();
    }
    await untilEnded(s, `/v2/batch/scrape/${batchId}`);
    const page = await call(s.url, 'GET', `/v2/batch/scrape/${batchId}?skip=1&limit=1`);
    assert.equal(page.body.data.length, 1);
    assert.equal(page.body.next, `${s.url}/v2/batch/scrape/${batchId}?skip=2&limit=1`);

    // Idempotency keys: first use starts the crawl, reuse answers 409 with its id.
    const key = randomUUID();
    const first = await call(s.url, 'POST', '/v2/crawl', { body: { url: `${site.url}/`, limit: 2, webhook: hookUrl }, headers: { 'x-idempotency-key': key } });
    assert.equal(first.status, 200, first.text);
    const again = await call(s.url, 'POST', '/v2/crawl', { body: { url: `${site.url}/`, limit: 2 }, headers: { 'x-idempotency-key': key } });
    assert.equal(again.status, 409);
    assert.equal(again.body.id, first.body.id);

    // Webhooks are signed and carry webhookId; DELETE of a completed crawl is refused.
    const crawlId = first.body.id as string;
    await untilEnded(s, `/v2/crawl/${crawlId}`);
    const mine = await eventually('signed crawl.completed delivery', () => {
      const got = deliveries.filter((d) => d.body.id === crawlId);
      return got.some((d) => d.body.type === 'crawl.completed') ? got : undefined;
    });
    for (const d of mine) {
      assert.equal(typeof d.body.webhookId, 'string');
      assert.match(String(d.headers[SIGNATURE_HEADER.toLowerCase()]), /^sha256=/);
    }
    const cancel = await call(s.url, 'DELETE', `/v2/crawl/${crawlId}`);
    assert.equal(cancel.status, 409);
    assert.equal((await call(s.url, 'GET', `/v2/crawl/${crawlId}`)).body.status, 'completed');

    // Map links keep the reference's form (the root with its slash).
    const map = await call(s.url, 'POST', '/v2/map', { body: { url: `${site.url}/` } });
    assert.ok((map.body.links as Array<{ url: string }>).some((l) => l.url === `${site.url}/`));
  });
});
