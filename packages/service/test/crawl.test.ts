// Crawl job lifecycle: status shape and paging, cancel, errors, active list, idempotency,
// kickoff faults, dropped responses, credits, concurrency, delay, webhooks, expiry,
// zero data retention and the prompt hook.
import assert from 'node:assert/strict';
import { PREVIEW_DEFAULTS } from '../src/crawl-prompt/index.js';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  collect,
  eventually,
  expectedCrawl,
  instrumentedEngine,
  sorted,
  startJobsStack,
  startWebhookReceiver,
  team,
  waitForJob,
  type Instrumented,
  type JobsStack,
  type WebhookReceiver,
} from './jobs-helpers.js';

const enterprise = { ignoreRobotsTxt: true, zeroDataRetention: true, searchEnterprise: [] as Array<'anon' | 'zdr'> };

describe('crawl jobs', () => {
  let stack: JobsStack;
  let engine: Instrumented;
  let site: string;
  let receiver: WebhookReceiver;
  let clock = 0;

  before(async () => {
    engine = instrumentedEngine();
    stack = await startJobsStack({
      engine,
      now: () => Date.now() + clock,
      teams: [
        team('a', { credits: 100_000, concurrency: 8 }),
        team('b', { credits: 100_000 }),
        team('poor', { credits: 7, concurrency: 4 }),
        team('narrow', { credits: 100_000, concurrency: 3 }),
        team('ent', { credits: 100_000, concurrency: 8, features: enterprise }),
      ],
    });
    site = stack.site.url;
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await stack.close();
    await receiver.close();
  });
  beforeEach(() => {
    engine.reset();
    stack.app.faults.set('a', undefined);
  });

  async function start(body: Record<string, unknown>, opts: { key?: string; headers?: Record<string, string> } = {}) {
    const res = await stack.call('POST', '/v2/crawl', { body, ...opts });
    assert.equal(res.status, 200, res.text);
    return res.body.id as string;
  }

  test('start answers { success, id, url } with the absolute status URL; status has the documented shape', async () => {
    const res = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/docs/guide-1` } });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.match(res.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(res.body.url, `${stack.api}/v2/crawl/${res.body.id}`);
    const done = await waitForJob(stack, `/v2/crawl/${res.body.id}`);
    const body = done.last;
    assert.deepEqual(Object.keys(body).sort(), ['completed', 'completedAt', 'createdAt', 'creditsUsed', 'data', 'expiresAt', 'status', 'success', 'total'].sort());
    assert.equal(body.status, 'completed');
    assert.equal(body.creditsUsed, done.docs.length);
    assert.ok(Date.parse(body.expiresAt as string) > Date.parse(body.completedAt as string));
    const doc = done.docs[0];
    assert.ok(doc.metadata.scrapeId && doc.metadata.sourceURL && doc.metadata.statusCode === 200);
    // Pages are kept like single scrapes, so interact can open them.
    assert.equal(stack.app.scrapes.get(doc.metadata.scrapeId)?.url, doc.metadata.sourceURL);
    const activity = stack.app.context.activity.list('a', { endpoint: 'crawl', limit: 100 });
    assert.ok(activity.data.some((r) => r.id === res.body.id && r.target === `${site}/docs/guide-1`));
  });

  test('paging: skip/limit, `next` until the end, nothing lost or repeated', async () => {
    const id = await start({ url: `${site}/` });
    const all = await waitForJob(stack, `/v2/crawl/${id}`);
    const paged = await collect(stack, `/v2/crawl/${id}`, undefined, '?limit=7');
    assert.equal(paged.pages, Math.ceil(all.docs.length / 7));
    assert.deepEqual(paged.urls, all.urls, 'same order');
    const tail = await stack.call('GET', `/v2/crawl/${id}?skip=${all.docs.length - 2}`);
    assert.equal(tail.body.data.length, 2);
    assert.equal(tail.body.next, undefined);
    const mid = await stack.call('GET', `/v2/crawl/${id}?skip=3&limit=5`);
    assert.equal(mid.body.next, `${stack.api}/v2/crawl/${id}?skip=8&limit=5`);
    assert.equal((await stack.call('GET', `/v2/crawl/${id}?limit=0`)).status, 400);
    assert.equal((await stack.call('GET', `/v2/crawl/${id}?skip=-1`)).status, 400);
  });

  test('a running job always has `next`; total counts queued pages, completed only scraped ones', async () => {
    // Two pages go through, the rest are held: the job is still running when it is read.
    const release = engine.hold(2);
    const id = await start({ url: `${site}/`, maxConcurrency: 2 });
    let running = await stack.call('GET', `/v2/crawl/${id}`);
    await eventually(async () => (running = await stack.call('GET', `/v2/crawl/${id}`)).body.completed >= 1, 'a page completed');
    assert.equal(running.body.status, 'scraping');
    assert.ok(running.body.next, 'next while running');
    assert.ok(running.body.total > running.body.completed, 'held pages count in total');
    assert.equal(running.body.completed, running.body.data.length);
    release();
    const done = await waitForJob(stack, `/v2/crawl/${id}`);
    assert.equal(done.last.total, done.last.completed);
  });

  test('ids: 400 not a UUID, 404 unknown, 403 another team, 404 a batch id', async () => {
    const id = await start({ url: `${site}/about` });
    assert.equal((await stack.call('GET', '/v2/crawl/not-a-uuid')).status, 400);
    const unknown = await stack.call('GET', `/v2/crawl/${randomUUID()}`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'Job not found');
    assert.equal((await stack.call('GET', `/v2/crawl/${id}`, { key: 'key-b' })).status, 403);
    assert.equal((await stack.call('DELETE', `/v2/crawl/${id}`, { key: 'key-b' })).status, 403);
    assert.equal((await stack.call('GET', `/v2/crawl/${id}/errors`, { key: 'key-b' })).status, 403);
    assert.equal((await stack.call('GET', `/v2/batch/scrape/${id}`)).status, 404);
    await waitForJob(stack, `/v2/crawl/${id}`);
  });

  test('cancel: in-flight scrapes are aborted, status cancelled; 409 once completed; 404 unknown', async () => {
    // Pages are held until aborted: the cancel always finds them in flight.
    engine.hold();
    const id = await start({ url: `${site}/` });
    await eventually(() => engine.calls.length > 0, 'a page in flight');
    const active = await stack.call('GET', '/v2/crawl/active');
    assert.ok(active.body.crawls.some((c: { id: string }) => c.id === id));
    const del = await stack.call('DELETE', `/v2/crawl/${id}`);
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { success: true, status: 'cancelled' });
    await eventually(() => engine.calls.every((c) => c.aborted), `in-flight pages aborted: ${engine.calls.filter((c) => !c.aborted).map((c) => c.url).join(' ')}`);
    const status = await stack.call('GET', `/v2/crawl/${id}`);
    assert.equal(status.body.status, 'cancelled');
    assert.equal(status.body.total, status.body.completed);
    assert.equal(status.body.next, undefined);
    assert.equal((await stack.call('DELETE', `/v2/crawl/${id}`)).status, 200, 'cancelling twice is harmless');
    const after = await stack.call('GET', '/v2/crawl/active');
    assert.ok(!after.body.crawls.some((c: { id: string }) => c.id === id));

    engine.reset();
    const done = await start({ url: `${site}/about` });
    await waitForJob(stack, `/v2/crawl/${done}`);
    const late = await stack.call('DELETE', `/v2/crawl/${done}`);
    assert.equal(late.status, 409);
    assert.equal((await stack.call('DELETE', `/v2/crawl/${randomUUID()}`)).status, 404);
  });

  test('active: only running crawls of the caller team, with their options', async () => {
    const release = engine.hold(); // still running when listed
    const id = await start({ url: `${site}/blog`, limit: 3, scrapeOptions: { formats: ['markdown'] } });
    const mine = await stack.call('GET', '/v2/crawl/active');
    assert.equal(mine.status, 200);
    const entry = mine.body.crawls.find((c: { id: string }) => c.id === id);
    assert.equal(entry.teamId, 'a');
    assert.equal(entry.url, `${site}/blog`);
    assert.ok(Date.parse(entry.created_at));
    assert.deepEqual(entry.options.scrapeOptions, { formats: ['markdown'] });
    assert.equal(entry.options.limit, 3);
    const theirs = await stack.call('GET', '/v2/crawl/active', { key: 'key-b' });
    assert.deepEqual(theirs.body, { success: true, crawls: [] });
    release();
    await waitForJob(stack, `/v2/crawl/${id}`);
  });

  test('idempotency: a reused key answers 409 with the original id; a bad key is 400', async () => {
    const key = randomUUID();
    const first = await start({ url: `${site}/about` }, { headers: { 'x-idempotency-key': key } });
    const again = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/about` }, headers: { 'x-idempotency-key': key } });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'Idempotency key already used');
    assert.equal(again.body.id, first);
    const bad = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/about` }, headers: { 'x-idempotency-key': 'nope' } });
    assert.equal(bad.status, 400);
    // Keys are per team.
    const other = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/about` }, key: 'key-b', headers: { 'x-idempotency-key': key } });
    assert.equal(other.status, 200);
    await waitForJob(stack, `/v2/crawl/${first}`);
    await waitForJob(stack, `/v2/crawl/${other.body.id as string}`, { key: 'key-b' });
  });

  test('kickoff fault: the job exists and is failed at once; GET answers 200 with success false', async () => {
    stack.app.faults.set('a', { failKickoffPattern: 'kickoff-fails' });
    const id = await start({ url: `${site}/about?kickoff-fails=1` });
    const res = await stack.call('GET', `/v2/crawl/${id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.equal(res.body.status, 'failed');
    assert.equal(typeof res.body.error, 'string');
    assert.equal(res.body.completed, 0);
    assert.equal(res.body.total, 0);
    assert.deepEqual(res.body.data, []);
    assert.equal(engine.calls.length, 0);
  });

  test('dropped start response: the job runs; the retry with the same key finds it', async () => {
    stack.app.faults.set('a', { dropNextStartResponses: 1 });
    const key = randomUUID();
    await assert.rejects(stack.call('POST', '/v2/crawl', { body: { url: `${site}/docs` }, headers: { 'x-idempotency-key': key } }));
    const retry = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/docs` }, headers: { 'x-idempotency-key': key } });
    assert.equal(retry.status, 409);
    const done = await waitForJob(stack, `/v2/crawl/${retry.body.id as string}`);
    assert.equal(done.status, 'completed');
    assert.ok(done.docs.length > 1);
  });

  test('credits: 1 per scraped page; limit clamped to what is left; 402 only when nothing is', async () => {
    const before = stack.app.ledger.remaining('poor');
    assert.equal(before, 7);
    const id = await start({ url: `${site}/` }, { key: 'key-poor' });
    const done = await waitForJob(stack, `/v2/crawl/${id}`, { key: 'key-poor' });
    const errors = await stack.call('GET', `/v2/crawl/${id}/errors`, { key: 'key-poor' });
    assert.equal(done.docs.length + errors.body.errors.length, 7, 'seven pages admitted');
    assert.equal(done.last.creditsUsed, done.docs.length);
    assert.equal(stack.app.ledger.remaining('poor'), 7 - done.docs.length);
    if (stack.app.ledger.remaining('poor') > 0) {
      await waitForJob(stack, `/v2/crawl/${await start({ url: `${site}/` }, { key: 'key-poor' })}`, { key: 'key-poor' });
    }
    assert.equal(stack.app.ledger.remaining('poor'), 0);
    const refused = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/` }, key: 'key-poor' });
    assert.equal(refused.status, 402);
    // A page that answered 404 is a document (statusCode 404), charged like any page.
    const a0 = stack.app.ledger.remaining('a');
    const missing = await start({ url: `${site}/blog/missing-post` });
    const f = await waitForJob(stack, `/v2/crawl/${missing}`);
    assert.equal(f.docs.length, 1);
    assert.equal(f.docs[0].metadata.statusCode, 404);
    assert.equal(f.last.creditsUsed, 1);
    assert.equal(stack.app.ledger.remaining('a'), a0 - 1);
  });

  test('limit counts unique pages admitted', async () => {
    const id = await start({ url: `${site}/`, limit: 5, sitemap: 'skip' });
    const done = await waitForJob(stack, `/v2/crawl/${id}`);
    const errors = await stack.call('GET', `/v2/crawl/${id}/errors`);
    assert.equal(done.docs.length + errors.body.errors.length, 5);
    const all = expectedCrawl(stack.site.manifest, { start: `${site}/`, sitemap: 'skip' });
    assert.ok(done.urls.every((u) => all.ok.has(u)));
    assert.equal(engine.calls.length, 5);
  });

  test('concurrency: every job of a team shares its limit; maxConcurrency caps one job; delay runs one page at a time', async () => {
    // Pages are held until the team's three slots are all taken, then let go.
    const release = engine.hold();
    const ids = await Promise.all([
      start({ url: `${site}/blog`, maxConcurrency: 10 }, { key: 'key-narrow' }),
      start({ url: `${site}/docs`, maxConcurrency: 10 }, { key: 'key-narrow' }),
    ]);
    await eventually(() => (engine.maxInFlight.get('narrow') ?? 0) >= 3, 'three pages in flight');
    engine.delayMs = 40;
    release();
    await Promise.all(ids.map((id) => waitForJob(stack, `/v2/crawl/${id}`, { key: 'key-narrow' })));
    assert.equal(engine.maxInFlight.get('narrow'), 3);

    engine.reset();
    engine.delayMs = 20;
    await waitForJob(stack, `/v2/crawl/${await start({ url: `${site}/docs`, maxConcurrency: 1 })}`);
    assert.equal(engine.maxInFlight.get('a'), 1);

    engine.reset();
    stack.site.resetRequests();
    await waitForJob(stack, `/v2/crawl/${await start({ url: `${site}/blog`, delay: 0.15, limit: 4, sitemap: 'skip' })}`);
    assert.equal(engine.maxInFlight.get('a'), 1);
    const pageHits = stack.site.requests.filter((r) => !r.path.startsWith('/robots') && !r.path.startsWith('/sitemap'));
    assert.equal(pageHits.length, 4);
    for (let i = 1; i < pageHits.length; i++) assert.ok(pageHits[i].at - pageHits[i - 1].at >= 140, `page ${i} came ${pageHits[i].at - pageHits[i - 1].at} ms after the previous one`);
  });

  test('scrapeOptions reach the engine for every page', async () => {
    const scrapeOptions = { formats: ['html', 'links'], onlyMainContent: false, headers: { 'x-demo-echo': 'hi' } };
    await waitForJob(stack, `/v2/crawl/${await start({ url: `${site}/docs/guide-1`, scrapeOptions })}`);
    assert.ok(engine.calls.length > 1);
    for (const c of engine.calls) {
      assert.deepEqual(c.options.formats, scrapeOptions.formats);
      assert.deepEqual(c.options.headers, scrapeOptions.headers);
      assert.equal(c.options.url, c.url);
    }
  });

  test('pages go to the search index unless fetched with headers (or ZDR)', async () => {
    const ctx = stack.app.context;
    const saved = ctx.pageIndex;
    const indexed: string[] = [];
    ctx.pageIndex = { index: (doc) => void indexed.push(doc.metadata.sourceURL) };
    try {
      const plain = await waitForJob(stack, `/v2/crawl/${await start({ url: `${site}/docs/guide-3` })}`);
      assert.deepEqual(sorted(indexed), sorted(plain.urls));
      indexed.length = 0;
      await waitForJob(stack, `/v2/crawl/${await start({ url: `${site}/docs/guide-3`, scrapeOptions: { headers: { cookie: 'x=1' } } })}`);
      assert.deepEqual(indexed, []);
    } finally {
      ctx.pageIndex = saved;
    }
  });

  test('webhooks: started, one page event per page (404 pages with success true), completed; metadata echoed', async () => {
    receiver.deliveries.length = 0;
    const id = await start({ url: `${site}/blog`, sitemap: 'skip', webhook: { url: `${receiver.url}/hook`, metadata: { run: 'r1' } } });
    const done = await waitForJob(stack, `/v2/crawl/${id}`);
    const errors = await stack.call('GET', `/v2/crawl/${id}/errors`);
    const expectedPages = done.docs.length + errors.body.errors.length;
    const got = await receiver.until((d) => d.filter((x) => x.body.id === id && x.body.type === 'crawl.page').length === expectedPages && d.some((x) => x.body.type === 'crawl.completed'));
    const mine = got.filter((d) => d.body.id === id);
    assert.equal(mine.filter((d) => d.body.type === 'crawl.started').length, 1);
    assert.equal(mine.filter((d) => d.body.type === 'crawl.completed').length, 1);
    const pages = mine.filter((d) => d.body.type === 'crawl.page');
    const ok = pages.filter((d) => d.body.success);
    assert.deepEqual(sorted(ok.map((d) => (d.body.data[0] as { metadata: { sourceURL: string } }).metadata.sourceURL)), sorted(done.urls));
    const failed = pages.filter((d) => !d.body.success);
    // /blog links /blog/missing-post: a 404 page is a document, sent with success true.
    assert.ok(ok.some((d) => (d.body.data[0] as { metadata: { statusCode: number } }).metadata.statusCode === 404), 'the 404 page is a page event');
    for (const f of failed) {
      assert.equal(typeof f.body.error, 'string');
      assert.deepEqual(Object.keys(f.body.data[0] as object), ['metadata']);
      assert.ok((f.body.data[0] as { metadata: { sourceURL: string } }).metadata.sourceURL.startsWith(site));
    }
    assert.ok(mine.every((d) => d.body.metadata?.run === 'r1'));
    assert.equal(new Set(mine.map((d) => d.body.webhookId)).size, mine.length);
  });

  test('expiry: jobTtlMs after completion the job is gone (404)', async () => {
    const id = await start({ url: `${site}/about` });
    await waitForJob(stack, `/v2/crawl/${id}`);
    clock += stack.app.context.config.jobTtlMs + 1000;
    try {
      const res = await stack.call('GET', `/v2/crawl/${id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error, 'Job not found');
    } finally {
      clock = 0;
    }
  });

  test('zeroDataRetention: 403 unless enabled; results are dropped once read to the end and pages are not kept', async () => {
    assert.equal((await stack.call('POST', '/v2/crawl', { body: { url: `${site}/about`, zeroDataRetention: true } })).status, 403);
    const id = await start({ url: `${site}/docs/guide-2`, zeroDataRetention: true }, { key: 'key-ent' });
    const first = await waitForJob(stack, `/v2/crawl/${id}`, { key: 'key-ent' });
    assert.ok(first.docs.length > 1);
    const marker = stack.app.scrapes.get(first.docs[0].metadata.scrapeId);
    assert.equal(marker?.document, null, 'only a content-free marker is kept');
    assert.equal(marker?.url, '');
    const again = await stack.call('GET', `/v2/crawl/${id}`, { key: 'key-ent' });
    assert.deepEqual(again.body.data, []);
    assert.equal(again.body.completed, first.docs.length);
    assert.equal(again.body.status, 'completed');
  });

  test('prompt: crawl and params-preview go through the one hook; explicit options win over generated ones', async () => {
    const prompt = 'only the blog, up to 3 pages';
    const preview = await stack.call('POST', '/v2/crawl/params-preview', { body: { url: `${site}/`, prompt } });
    assert.equal((await stack.call('POST', '/v2/crawl/params-preview', { body: { url: `${site}/` } })).status, 400);
    const release = engine.hold(); // still running when listed
    const crawl = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/`, prompt, limit: 2 } });
    if (preview.status === 503) {
      // No way to turn a prompt into options on this deployment: a clear error, no job.
      assert.equal(preview.body.code, 'PROMPT_NOT_CONFIGURED');
      assert.equal(crawl.status, 503);
      assert.equal(crawl.body.code, 'PROMPT_NOT_CONFIGURED');
      return;
    }
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.body.data.url, `${site}/`);
    assert.equal(crawl.status, 200, crawl.text);
    const active = await stack.call('GET', '/v2/crawl/active');
    const options = active.body.crawls.find((c: { id: string }) => c.id === crawl.body.id)?.options as Record<string, unknown>;
    assert.equal(options.limit, 2, 'the explicit limit wins');
    for (const field of ['includePaths', 'excludePaths', 'sitemap', 'crawlEntireDomain'] as const) {
      // The preview shows the reference's default where the prompt set nothing.
      if (preview.body.data[field] !== undefined) assert.deepEqual(options[field] ?? PREVIEW_DEFAULTS[field], preview.body.data[field], field);
    }
    release();
    await waitForJob(stack, `/v2/crawl/${crawl.body.id as string}`);
  });
});
