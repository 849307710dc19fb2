// Activities against a fake of the open-source server's behaviour (contract-notes, "Observed on
// the open-source server"): keyed crawl starts answer 500 UNKNOWN_ERROR, missing routes answer
// HTML `Cannot GET ...`, map links come without trailing slash. The run must complete, buy each
// job once, and report what the service lacks.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/client.js';
import { createActivities, IdempotencyMemory } from '../../src/activities/index.js';
import { urlKey, sameUrl } from '../../packages/contract/src/url-keys.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { FakeServer, type FakeResponse, type RecordedRequest } from '../api/fake-server.js';

const API_KEY = 'wd-test-secret-key-0123456789';
const KEY = '0190a7a0-0000-7000-8000-00000000abcd';
const quiet = new DefaultLogger('ERROR');
let server: FakeServer;
let dir: string;
let store: FilesystemStore;
let client: WebDataClient;

before(async () => {
  server = await new FakeServer().start();
  dir = mkdtempSync(join(tmpdir(), 'wd-oss-'));
  store = new FilesystemStore({ root: dir });
  client = new WebDataClient({ apiKey: API_KEY, baseUrl: server.base });
});

after(async () => {
  await client.close();
  await store.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => server.reset());

function env(info: Record<string, unknown> = {}) {
  return new MockActivityEnvironment({ workflowExecution: { workflowId: 'wf-oss', runId: 'r1' }, scheduledTimestampMs: Date.now() - 1000, ...info } as never, { logger: quiet });
}

function call<I, R>(e: MockActivityEnvironment, fn: (input: I) => Promise<R>, input: I): Promise<R> {
  return e.run(fn as (input: unknown) => Promise<R>, input) as Promise<R>;
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ApplicationFailure, `expected ApplicationFailure, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the activity to fail');
}

/** An HTML 404 as Express answers a route it does not have. */
function cannot(req: RecordedRequest): FakeResponse {
  return { status: 404, raw: `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body><pre>Cannot ${req.method} ${req.path}</pre></body></html>` };
}

/**
 * The open-source server's crawl starts: a UUID `x-idempotency-key` makes POST /v2/crawl answer
 * 500 UNKNOWN_ERROR (no job); without it the crawl starts. GET /v2/crawl/active lists the jobs.
 */
function ossCrawlServer(opts: { startDespite500?: boolean } = {}) {
  const jobs: Array<{ id: string; url: string; created_at: string }> = [];
  const handler = (req: RecordedRequest, base: string): FakeResponse => {
    if (req.method === 'POST' && req.path === '/v2/crawl') {
      const url = (req.body as { url: string }).url;
      const id = `0190a7a0-0000-7000-8000-${String(jobs.length + 1).padStart(12, '0')}`;
      if (req.headers['x-idempotency-key']) {
        if (opts.startDespite500) jobs.push({ id, url, created_at: new Date().toISOString() });
        return { status: 500, body: { success: false, code: 'UNKNOWN_ERROR', error: 'An unexpected error occurred. Please contact help@firecrawl.com for help. Your exception ID is 1234' } };
      }
      jobs.push({ id, url, created_at: new Date().toISOString() });
      return { body: { success: true, id, url: `${base}/v2/crawl/${id}` } };
    }
    if (req.method === 'GET' && req.path === '/v2/crawl/active') {
      // The server lists crawls by the URL it normalized: no trailing slash on the root.
      return { body: { success: true, crawls: jobs.map((j) => ({ ...j, teamId: 'bypass', url: j.url.replace(/\/$/, ''), options: {} })) } };
    }
    return cannot(req);
  };
  return { jobs, handler };
}

describe('idempotency key refused (500 UNKNOWN_ERROR to keyed crawl starts)', () => {
  test('recovers by starting once without the key, remembers the refusal, reports it; exactly one job', async () => {
    const oss = ossCrawlServer();
    server.reset(oss.handler);
    const acts = createActivities({ client, store });
    const res = await call(env(), acts.startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: KEY });
    assert.equal(oss.jobs.length, 1, 'jobs started');
    assert.deepEqual(res, { jobId: oss.jobs[0].id, recovered: false, idempotency: 'unsupported' });
    const posts = server.requests.filter((r) => r.method === 'POST');
    assert.equal(posts.length, 2);
    assert.equal(posts[0].headers['x-idempotency-key'], KEY);
    assert.equal(posts[1].headers['x-idempotency-key'], undefined);
    assert.ok(server.requests.some((r) => r.path === '/v2/crawl/active'), 'looked for a job the keyed attempt started');

    // The next start against this service omits the key at once: one POST, no 500 first.
    server.requests.length = 0;
    const again = await call(env(), acts.startCrawl, { body: { url: 'http://site.test/docs' }, idempotencyKey: '0190a7a0-0000-7000-8000-00000000abce' });
    assert.equal(again.idempotency, 'unsupported');
    assert.equal(oss.jobs.length, 2);
    assert.deepEqual(server.requests.map((r) => `${r.method} ${r.path} ${r.headers['x-idempotency-key'] ?? '-'}`), ['POST /v2/crawl -']);
  });

  test('the refusal is remembered per base URL: another service still gets the key', async () => {
    const memory = new IdempotencyMemory();
    memory.markRefused('http://elsewhere.test:3002');
    server.reset(() => ({ body: { success: true, id: '0190a7a0-0000-7000-8000-000000000009', url: 'x' } }));
    const res = await call(env(), createActivities({ client, store, idempotency: memory }).startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: KEY });
    assert.deepEqual(res, { jobId: '0190a7a0-0000-7000-8000-000000000009', recovered: false });
    assert.equal(server.requests[0].headers['x-idempotency-key'], KEY);
  });

  test('a job the keyed start did begin (found in /v2/crawl/active, root without slash) is taken, not bought again', async () => {
    const oss = ossCrawlServer({ startDespite500: true });
    server.reset(oss.handler);
    const res = await call(env(), createActivities({ client, store }).startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: KEY });
    assert.equal(oss.jobs.length, 1, 'jobs started');
    assert.deepEqual(res, { jobId: oss.jobs[0].id, recovered: true });
    assert.equal(server.requests.filter((r) => r.method === 'POST').length, 1);
  });

  test('a retry after a lost unkeyed start finds the job the earlier attempt started', async () => {
    const oss = ossCrawlServer();
    server.reset(oss.handler);
    const memory = new IdempotencyMemory();
    const acts = createActivities({ client, store, idempotency: memory });
    const first = await call(env(), acts.startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: KEY });
    // Attempt 2 of the same activity (its answer was lost): the service is known to refuse keys.
    const retry = await call(env({ attempt: 2 }), acts.startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: KEY });
    assert.equal(oss.jobs.length, 1, 'jobs started');
    assert.deepEqual(retry, { jobId: first.jobId, recovered: true, idempotency: 'unsupported' });
  });

  test('a 500 to an unkeyed start is an ordinary retryable server failure', async () => {
    server.reset(() => ({ status: 500, body: { success: false, code: 'UNKNOWN_ERROR', error: 'boom' } }));
    const f = await failureOf(call(env(), createActivities({ client, store }).startCrawl, { body: { url: 'http://site.test/' } }));
    assert.equal(f.type, 'server');
    assert.equal(f.nonRetryable, false);
    assert.equal(server.requests.length, 1);
  });

  test('the 409 recovery still holds when the active list is missing (activity listing too)', async () => {
    const JOB = '0190a7a0-0000-7000-8000-000000000001';
    server.reset((req) => req.method === 'POST'
      ? { status: 409, body: { success: false, error: 'Idempotency key already used', id: JOB } }
      : cannot(req));
    const res = await call(env(), createActivities({ client, store }).startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: KEY });
    assert.deepEqual(res, { jobId: JOB, recovered: true });
  });

  test('a batch start after the crawl taught the refusal omits the key and says so', async () => {
    const oss = ossCrawlServer();
    const batchId = '0190a7a0-0000-7000-8000-0000000000bb';
    server.reset((req, base) => req.path === '/v2/batch/scrape'
      ? { body: { success: true, id: batchId, url: `${base}/v2/batch/scrape/${batchId}` } }
      : oss.handler(req, base));
    const acts = createActivities({ client, store });
    await call(env(), acts.startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: KEY });
    const res = await call(env(), acts.startBatchScrape, { body: { urls: ['http://site.test/a'] }, idempotencyKey: '0190a7a0-0000-7000-8000-00000000abcf' });
    assert.equal(res.jobId, batchId);
    assert.equal(res.idempotency, 'unsupported');
    const batchPost = server.requests.find((r) => r.path === '/v2/batch/scrape');
    assert.equal(batchPost?.headers['x-idempotency-key'], undefined);
  });
});

describe('missing auxiliary routes', () => {
  const JOB = '0190a7a0-0000-7000-8000-0000000000cc';
  test('batch collect stores every page and notes the missing errors route instead of failing', async () => {
    const urls = ['http://site.test/a', 'http://site.test/b'];
    server.reset((req) => {
      if (req.path === `/v2/batch/scrape/${JOB}`) {
        return { body: { success: true, status: 'completed', total: 2, completed: 2, creditsUsed: 2, expiresAt: new Date().toISOString(), data: urls.map((u) => ({ markdown: `# ${u}`, metadata: { sourceURL: u, url: u, statusCode: 200 } })) } };
      }
      return cannot(req);
    });
    const res = await call(env(), createActivities({ client, store }).collectBatch, { runId: 'oss-collect', jobId: JOB });
    assert.equal(res.documents, 2);
    assert.equal(res.creditsUsed, 2);
    assert.equal(res.failures, 0);
    assert.deepEqual(res.notAvailable, ['batch scrape errors']);
  });

  test('a JSON 404 "Job not found" on the errors route still fails (the job is gone, not the route)', async () => {
    server.reset((req) => req.path.endsWith('/errors')
      ? { status: 404, body: { error: 'Job not found' } }
      : { body: { success: true, status: 'completed', total: 0, completed: 0, creditsUsed: 0, data: [] } });
    const f = await failureOf(call(env(), createActivities({ client, store }).collectBatch, { runId: 'oss-collect-2', jobId: JOB }));
    assert.equal(f.type, 'not_found');
  });

  test('support ask and interact on a service without them: non-retryable not_available', async () => {
    server.reset(cannot);
    const acts = createActivities({ client, store });
    const support = await failureOf(call(env(), acts.askSupport, { body: { question: 'why?' } }));
    assert.equal(support.type, 'not_available');
    assert.equal(support.nonRetryable, true);
    assert.match(support.message, /not available on this service \(POST \/v2\/support\/ask\)/);
    const interact = await failureOf(call(env(), acts.interact, { scrapeId: JOB, code: '1' }));
    assert.equal(interact.type, 'not_available');
    // Stopping a session that could never open is not an error.
    assert.deepEqual(await call(env(), acts.stopInteraction, { scrapeId: JOB }), { stopped: false, creditsBilled: 0, sessionDurationMs: 0 });
  });

  test('credit snapshot without the history route: remaining credits, history noted as missing', async () => {
    server.reset((req) => req.path === '/v2/team/credit-usage'
      ? { body: { success: true, data: { remainingCredits: 99999, planCredits: 0, billingPeriodStart: null, billingPeriodEnd: null } } }
      : cannot(req));
    const snap = await call(env(), createActivities({ client, store }).creditSnapshot, undefined as never);
    assert.deepEqual(snap, { remainingCredits: 99999, usedThisMonth: 0, notAvailable: ['credit usage history'] });
  });
});

describe('URL keys: map links and crawl results compare equal', () => {
  test('trailing slash, root without slash, default ports, fragment, case of scheme and host', () => {
    assert.equal(urlKey('http://127.0.0.10:4000'), urlKey('http://127.0.0.10:4000/'));
    assert.equal(urlKey('http://site.test/docs'), urlKey('http://site.test/docs/'));
    assert.equal(urlKey('http://site.test:80/docs'), urlKey('http://site.test/docs'));
    assert.equal(urlKey('https://site.test:443/'), urlKey('https://site.test'));
    assert.equal(urlKey('http://site.test/docs#intro'), urlKey('http://site.test/docs'));
    assert.equal(urlKey('HTTP://Site.Test/docs'), urlKey('http://site.test/docs'));
    assert.notEqual(urlKey('http://site.test/docs?page=2'), urlKey('http://site.test/docs'));
    assert.notEqual(urlKey('http://site.test:8080/'), urlKey('http://site.test/'));
    assert.notEqual(urlKey('https://site.test/'), urlKey('http://site.test/'));
    assert.ok(sameUrl('http://site.test', 'http://site.test/'));
    assert.ok(!sameUrl(undefined, 'http://site.test/'));
  });

  test('diff: a crawl that returned every mapped page leaves nothing to batch-scrape', async () => {
    const acts = createActivities({ client, store });
    const runId = 'oss-diff';
    const base = 'http://127.0.0.10:4000';
    // Map links as the open-source server returns them: no trailing slash, root without slash.
    await store.appendLinks(runId, 'selected', [`${base}`, `${base}/docs`, `${base}/blog/`, `${base}/missing`].map((url) => ({ url })));
    const crawlJob = '0190a7a0-0000-7000-8000-0000000000dd';
    await store.appendDocuments(runId, crawlJob, [`${base}/`, `${base}/docs/`, `${base}/blog`].map((url) => ({ url, kind: 'crawl', markdown: '#', metadata: { sourceURL: url, url } })));
    const diff = await call(env(), acts.diffUrls, { runId, fromList: 'selected', coveredByJobs: [crawlJob], toList: 'missing' });
    assert.equal(diff.count, 1);
    assert.deepEqual(diff.sample, [`${base}/missing`]);
  });

  test('select: one page spelled twice is selected once', async () => {
    const acts = createActivities({ client, store });
    const runId = 'oss-select';
    await store.appendLinks(runId, 'mapped', ['http://site.test', 'http://site.test/', 'http://site.test/docs', 'http://site.test/docs/#top'].map((url) => ({ url })));
    const selected = await call(env(), acts.selectUrls, { runId, fromList: 'mapped', toList: 'selected' });
    assert.equal(selected.count, 2);
  });
});
