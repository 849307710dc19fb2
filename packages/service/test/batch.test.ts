// Batch scrape jobs: documents for error pages, engine failures under /errors, invalid
// URLs, idempotency, webhooks, cancel, credits, concurrency, and paging across the
// byte cut (a lowered limit and the real 10 MiB one) with ~400 KiB demo pages.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  collect,
  eventually,
  instrumentedEngine,
  sorted,
  startJobsStack,
  startWebhookReceiver,
  team,
  waitForJob,
  type Instrumented,
  type JobsStack,
} from './jobs-helpers.js';

describe('batch scrape jobs', () => {
  let stack: JobsStack;
  let engine: Instrumented;
  let site: string;

  before(async () => {
    engine = instrumentedEngine();
    stack = await startJobsStack({
      engine,
      teams: [team('a', { credits: 100_000, concurrency: 6 }), team('b'), team('poor', { credits: 3 })],
    });
    site = stack.site.url;
  });
  after(() => stack.close());
  beforeEach(() => {
    engine.reset();
    stack.app.faults.set('a', undefined);
  });

  async function start(body: Record<string, unknown>, opts: { key?: string; headers?: Record<string, string> } = {}) {
    const res = await stack.call('POST', '/v2/batch/scrape', { body, ...opts });
    assert.equal(res.status, 200, res.text);
    return res.body as { id: string; url: string; invalidURLs?: string[] };
  }

  test('every URL once; 404/500 pages are documents with statusCode and error; engine failures go to /errors', async () => {
    const urls = [`${site}/about`, `${site}/blog/missing-post`, `${site}/docs/broken-page`, 'http://external.invalid/x', `${site}/docs`];
    const started = await start({ urls, formats: ['markdown'] });
    assert.equal(started.url, `${stack.api}/v2/batch/scrape/${started.id}`);
    assert.equal(started.invalidURLs, undefined);
    const done = await waitForJob(stack, `/v2/batch/scrape/${started.id}`);
    assert.equal(done.status, 'completed');
    assert.deepEqual(sorted(done.urls), sorted([urls[0], urls[1], urls[2], urls[4]]));
    const missing = done.docs.find((d) => d.metadata.sourceURL === urls[1]);
    assert.equal(missing?.metadata.statusCode, 404);
    assert.equal(typeof missing?.metadata.error, 'string');
    assert.equal(done.docs.find((d) => d.metadata.sourceURL === urls[2])?.metadata.statusCode, 500);
    assert.equal(done.last.total, 4);
    assert.equal(done.last.completed, 4);
    assert.equal(done.last.creditsUsed, 4);
    const errors = await stack.call('GET', `/v2/batch/scrape/${started.id}/errors`);
    assert.equal(errors.status, 200);
    assert.equal(errors.body.errors.length, 1);
    const [e] = errors.body.errors;
    assert.equal(e.url, urls[3]);
    assert.equal(e.code, 'DESTINATION_NOT_ALLOWED', 'the engine refuses non-loopback destinations');
    assert.ok(e.id && Date.parse(e.timestamp) && e.error);
    assert.deepEqual(errors.body.robotsBlocked, []);
    assert.ok(engine.calls.every((c) => (c.options.formats as string[])[0] === 'markdown'));
    const activity = stack.app.context.activity.list('a', { endpoint: 'batch_scrape', limit: 100 });
    assert.ok(activity.data.some((r) => r.id === started.id));
  });

  test('invalid URLs: 400 by default; dropped and listed with ignoreInvalidURLs', async () => {
    const urls = [`${site}/about`, 'not a url', 'ftp://example.com/x'];
    const refused = await stack.call('POST', '/v2/batch/scrape', { body: { urls } });
    assert.equal(refused.status, 400);
    const started = await start({ urls, ignoreInvalidURLs: true });
    assert.deepEqual(started.invalidURLs, ['not a url', 'ftp://example.com/x']);
    const done = await waitForJob(stack, `/v2/batch/scrape/${started.id}`);
    assert.deepEqual(done.urls, [`${site}/about`]);
    const none = await stack.call('POST', '/v2/batch/scrape', { body: { urls: ['nope'], ignoreInvalidURLs: true } });
    assert.equal(none.status, 400);
    assert.equal((await stack.call('POST', '/v2/batch/scrape', { body: { urls: [] } })).status, 400);
    assert.equal((await stack.call('POST', '/v2/batch/scrape', { body: { urls: [`${site}/`], bogus: 1 } })).status, 400);
  });

  test('idempotency key: 409 with the original id', async () => {
    const key = randomUUID();
    const first = await start({ urls: [`${site}/about`] }, { headers: { 'x-idempotency-key': key } });
    const again = await stack.call('POST', '/v2/batch/scrape', { body: { urls: [`${site}/about`] }, headers: { 'x-idempotency-key': key } });
    assert.equal(again.status, 409);
    assert.equal(again.body.id, first.id);
    await waitForJob(stack, `/v2/batch/scrape/${first.id}`);
  });

  test('webhooks: batch_scrape.started, page per URL, completed', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const urls = [`${site}/about`, `${site}/docs`, 'http://external.invalid/y'];
      const { id } = await start({ urls, webhook: `${receiver.url}/b` });
      await waitForJob(stack, `/v2/batch/scrape/${id}`);
      const got = await receiver.until((d) => d.some((x) => x.body.type === 'batch_scrape.completed') && d.filter((x) => x.body.type === 'batch_scrape.page').length === 3);
      assert.equal(got.filter((d) => d.body.type === 'batch_scrape.started').length, 1);
      const pages = got.filter((d) => d.body.type === 'batch_scrape.page');
      assert.equal(pages.filter((p) => p.body.success).length, 2);
      const failed = pages.find((p) => !p.body.success);
      assert.deepEqual(failed?.body.data, [{ metadata: { sourceURL: urls[2] } }]);
      assert.ok(got.every((d) => d.body.id === id));
    } finally {
      await receiver.close();
    }
  });

  test('cancel, 409 when completed, 403 for another team, kickoff fault', async () => {
    engine.hold(); // pages wait until aborted: the job is still running when cancelled
    const { id } = await start({ urls: [`${site}/about`, `${site}/docs`, `${site}/blog`] });
    assert.equal((await stack.call('DELETE', `/v2/batch/scrape/${id}`, { key: 'key-b' })).status, 403);
    const del = await stack.call('DELETE', `/v2/batch/scrape/${id}`);
    assert.deepEqual(del.body, { success: true, status: 'cancelled' });
    const status = await stack.call('GET', `/v2/batch/scrape/${id}`);
    assert.equal(status.body.status, 'cancelled');
    engine.reset();
    const done = await start({ urls: [`${site}/about`] });
    await waitForJob(stack, `/v2/batch/scrape/${done.id}`);
    assert.equal((await stack.call('DELETE', `/v2/batch/scrape/${done.id}`)).status, 409);

    stack.app.faults.set('a', { failKickoffPattern: '/about' });
    const failed = await start({ urls: [`${site}/docs`, `${site}/about`] });
    const res = await stack.call('GET', `/v2/batch/scrape/${failed.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.equal(res.body.status, 'failed');
    assert.deepEqual([res.body.completed, res.body.total, res.body.data], [0, 0, []]);
  });

  test('credits: the batch is cut to the remaining credits without an error (as the hosted service); then 402', async () => {
    const urls = [1, 2, 3, 4, 5].map((n) => `${site}/blog/post-${n}`);
    const { id } = await start({ urls, maxConcurrency: 1 }, { key: 'key-poor' });
    const done = await waitForJob(stack, `/v2/batch/scrape/${id}`, { key: 'key-poor' });
    assert.equal(done.docs.length, 3);
    assert.equal(done.last.total, 3);
    assert.equal(done.last.creditsUsed, 3);
    const errors = await stack.call('GET', `/v2/batch/scrape/${id}/errors`, { key: 'key-poor' });
    assert.deepEqual(errors.body.errors, []);
    assert.equal(stack.app.ledger.remaining('poor'), 0);
    assert.equal((await stack.call('POST', '/v2/batch/scrape', { body: { urls }, key: 'key-poor' })).status, 402);
  });

  test('maxConcurrency caps the pages in flight', async () => {
    // Pages are held until both slots are taken, then let go.
    const release = engine.hold();
    const urls = Array.from({ length: 8 }, (_, i) => `${site}/blog/post-${i + 1}`);
    const { id } = await start({ urls, maxConcurrency: 2 });
    await eventually(() => (engine.maxInFlight.get('a') ?? 0) >= 2, 'two pages in flight');
    engine.delayMs = 30;
    release();
    await waitForJob(stack, `/v2/batch/scrape/${id}`);
    assert.equal(engine.maxInFlight.get('a'), 2);
  });
});

describe('batch scrape paging across the byte cut', () => {
  // rawHtml keeps the documents large without paying for markdown conversion of 400 KiB
  // pages, which would stall this process (service, site and client share it) for seconds.
  const bigUrls = (site: string, n: number, kb = 400) => Array.from({ length: n }, (_, i) => `${site}/big/${i + 1}?kb=${kb}`);

  test('a lowered pageByteLimit: pages stay under it, the crossing item moves on, a lone oversized item still comes', async () => {
    const limit = 1024 * 1024;
    const stack = await startJobsStack({ config: { pageByteLimit: limit } });
    try {
      const urls = bigUrls(stack.site.url, 7);
      const res = await stack.call('POST', '/v2/batch/scrape', { body: { urls, formats: ['rawHtml'], maxConcurrency: 3 } });
      await waitForJob(stack, `/v2/batch/scrape/${res.body.id as string}`);
      let next: string | undefined = `/v2/batch/scrape/${res.body.id as string}`;
      const seen: string[] = [];
      const sizes: number[] = [];
      while (next) {
        const page = await stack.call('GET', next);
        sizes.push(Buffer.byteLength(page.text));
        assert.ok(Buffer.byteLength(page.text) <= limit || page.body.data.length === 1, `page of ${Buffer.byteLength(page.text)} bytes`);
        seen.push(...page.body.data.map((d: { metadata: { sourceURL: string } }) => d.metadata.sourceURL));
        next = page.body.next ? (page.body.next as string).slice(stack.api.length) : undefined;
      }
      assert.deepEqual(sorted(seen), sorted(urls));
      assert.equal(sizes.length, 4, `two ~400 KiB items per 1 MiB page: ${sizes.join(', ')}`);

      const huge = await stack.call('POST', '/v2/batch/scrape', { body: { urls: [`${stack.site.url}/big/1?kb=1500`], formats: ['rawHtml'] } });
      const one = await waitForJob(stack, `/v2/batch/scrape/${huge.body.id as string}`);
      assert.equal(one.docs.length, 1);
      assert.equal(one.pages, 1);
    } finally {
      await stack.close();
    }
  });

  test('the real 10 MiB cut: 30 pages of ~400 KiB come in two pages', async () => {
    const stack = await startJobsStack();
    try {
      assert.equal(stack.app.context.config.pageByteLimit, 10 * 1024 * 1024);
      const urls = bigUrls(stack.site.url, 30);
      const res = await stack.call('POST', '/v2/batch/scrape', { body: { urls, formats: ['rawHtml'], maxConcurrency: 3 } });
      await waitForJob(stack, `/v2/batch/scrape/${res.body.id as string}`, { timeoutMs: 120_000 });
      const first = await stack.call('GET', `/v2/batch/scrape/${res.body.id as string}`);
      const bytes = Buffer.byteLength(first.text);
      assert.ok(bytes <= 10 * 1024 * 1024, `${bytes} bytes`);
      assert.ok(bytes > 9 * 1024 * 1024, 'filled close to the cut');
      assert.ok(first.body.data.length < 30);
      assert.equal(first.body.next, `${stack.api}/v2/batch/scrape/${res.body.id as string}?skip=${first.body.data.length}`);
      const all = await collect(stack, `/v2/batch/scrape/${res.body.id as string}`);
      const errors = await stack.call('GET', `/v2/batch/scrape/${res.body.id as string}/errors`);
      assert.deepEqual(errors.body.errors, []);
      assert.equal(all.pages, 2);
      assert.deepEqual(sorted(all.urls), sorted(urls));
    } finally {
      await stack.close();
    }
  });
});
