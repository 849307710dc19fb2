// Activities under MockActivityEnvironment against an in-process HTTP server: failure mapping,
// Retry-After → nextRetryDelay, cancellation, heartbeat resume, exactly-once collection and
// recovery of a lost job start.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/client.js';
import { createActivities } from '../../src/activities/index.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { FakeServer } from '../api/fake-server.js';

const API_KEY = 'wd-test-secret-key-0123456789';
const JOB = '0190a7a0-0000-7000-8000-000000000001';
let server: FakeServer;
let dir: string;
let store: FilesystemStore;
let client: WebDataClient;
let acts: ReturnType<typeof createActivities>;

before(async () => {
  server = await new FakeServer().start();
  dir = mkdtempSync(join(tmpdir(), 'wd-acts-'));
  store = new FilesystemStore({ root: dir });
  client = new WebDataClient({ apiKey: API_KEY, baseUrl: server.base });
  acts = createActivities({ client, store, heartbeatEveryMs: 50 });
});

after(async () => {
  await client.close();
  await store.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => server.reset());

const quiet = new DefaultLogger('ERROR');

function env(info: Record<string, unknown> = {}) {
  return new MockActivityEnvironment({ workflowExecution: { workflowId: 'wf-test', runId: 'r1' }, ...info } as never, { logger: quiet });
}

/** Runs an activity in a mock context, keeping its argument and result types. */
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

describe('failure mapping', () => {
  const cases: Array<[number, string, boolean]> = [
    [400, 'validation', true],
    [401, 'unauthorized', true],
    [402, 'insufficient_credits', true],
    [403, 'forbidden', true],
    [404, 'not_found', true],
    [409, 'conflict', true],
    [410, 'gone', true],
    [408, 'timeout', false],
    [500, 'server', false],
    [503, 'server', false],
  ];
  for (const [status, kind, nonRetryable] of cases) {
    test(`${status} → type ${kind}, ${nonRetryable ? 'non-retryable' : 'retryable'}`, async () => {
      server.handler = () => ({ status, body: { success: false, error: `boom with Bearer ${API_KEY}` } });
      const f = await failureOf(call(env(), acts.getJobSummary, { kind: 'crawl', jobId: JOB }));
      assert.equal(f.type, kind);
      assert.equal(f.nonRetryable, nonRetryable);
      assert.ok(!JSON.stringify({ m: f.message, d: f.details, c: String(f.cause) }).includes(API_KEY), 'API key leaked into the failure');
    });
  }

  // The 429 cases use a client that does not hold their route after a Retry-After (the client's
  // own tests cover the hold): holding, every later call of the file would wait out up to 30 s.
  let unheldClient: WebDataClient;
  let unheld: ReturnType<typeof createActivities>;
  before(() => {
    unheldClient = new WebDataClient({ apiKey: API_KEY, baseUrl: server.base, holdOnRetryAfter: false });
    unheld = createActivities({ client: unheldClient, store, heartbeatEveryMs: 50 });
  });
  after(() => unheldClient.close());

  test('429 with a Retry-After header → nextRetryDelay', async () => {
    server.handler = () => ({ status: 429, headers: { 'retry-after': '7' }, body: { success: false, error: 'Rate limit exceeded' } });
    const f = await failureOf(call(env(), unheld.getJobSummary, { kind: 'crawl', jobId: JOB }));
    assert.equal(f.type, 'rate_limited');
    assert.equal(f.nonRetryable, false);
    assert.equal(f.nextRetryDelay, 7000);
  });

  test('429 on a late attempt: nextRetryDelay is the policy\'s backoff when that is longer than Retry-After', async () => {
    server.handler = () => ({ status: 429, headers: { 'retry-after': '1' }, body: { success: false, error: 'Rate limit exceeded' } });
    const retryPolicy = { initialInterval: 2000, backoffCoefficient: 2, maximumInterval: 60_000 };
    // Attempt 6: 2 s × 2^5 = 64 s, capped at 60 s, plus up to 20% jitter.
    const late = await failureOf(call(env({ attempt: 6, retryPolicy }), unheld.getJobSummary, { kind: 'crawl', jobId: JOB }));
    assert.ok(late.nextRetryDelay !== undefined && Number(late.nextRetryDelay) >= 60_000 && Number(late.nextRetryDelay) <= 72_000, `nextRetryDelay ${String(late.nextRetryDelay)}`);
    // Attempt 1: 2-2.4 s of backoff, longer than the 1 s asked.
    const first = await failureOf(call(env({ attempt: 1, retryPolicy }), unheld.getJobSummary, { kind: 'crawl', jobId: JOB }));
    assert.ok(Number(first.nextRetryDelay) >= 2000 && Number(first.nextRetryDelay) <= 2400, `nextRetryDelay ${String(first.nextRetryDelay)}`);
    // A Retry-After longer than the backoff wins.
    server.handler = () => ({ status: 429, headers: { 'retry-after': '30' }, body: { success: false, error: 'Rate limit exceeded' } });
    const asked = await failureOf(call(env({ attempt: 1, retryPolicy }), unheld.getJobSummary, { kind: 'crawl', jobId: JOB }));
    assert.equal(asked.nextRetryDelay, 30_000);
  });

  test('429 with only "retry after Ns" in the message → nextRetryDelay', async () => {
    server.handler = () => ({ status: 429, body: { success: false, error: 'Rate limit exceeded for crawl: retry after 25s, resets at 2026-01-01T00:00:00Z' } });
    const f = await failureOf(call(env(), unheld.getJobSummary, { kind: 'crawl', jobId: JOB }));
    assert.equal(f.nextRetryDelay, 25000);
  });

  test('a refused connection is a retryable network failure', async () => {
    const dead = new WebDataClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1' });
    const f = await failureOf(call(env(), createActivities({ client: dead, store }).getJobSummary, { kind: 'crawl', jobId: JOB }));
    assert.equal(f.type, 'network');
    assert.equal(f.nonRetryable, false);
    await dead.close();
  });

  test('interact sends the request fields it is given, as given', async () => {
    server.handler = () => ({ status: 200, body: { success: true, stdout: 'ok', exitCode: 0 } });
    const result = await call(env(), acts.interact, { runId: 'r-interact', scrapeId: JOB, url: 'http://a.test/', prompt: 'read the title', language: 'python', timeout: 45 });
    assert.equal(result.success, true);
    assert.equal(server.requests.length, 1);
    assert.deepEqual(server.requests[0].body, { prompt: 'read the title', language: 'python', timeout: 45 });
  });

  test('local validation fails before any request, naming the field', async () => {
    const f = await failureOf(call(env(), acts.startCrawl, { body: { url: 'not a url' } as never }));
    assert.equal(f.type, 'validation');
    assert.match(f.message, /url/);
    assert.equal(server.requests.length, 0);
  });
});

describe('cancellation', () => {
  test('cancelling the activity aborts the HTTP request', async () => {
    // The server holds its answer until the activity has settled, and the cancel comes once the
    // request arrived: the activity can only end by aborting the request it has in flight.
    let arrived!: () => void;
    const arrival = new Promise<void>((r) => { arrived = r; });
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    server.handler = async () => {
      arrived();
      await released;
      return { status: 200, body: { success: true, data: { metadata: {} } } };
    };
    const e = env();
    const run = call(e, acts.scrape, { runId: 'cancel-run', body: { url: 'http://site.test/page' } });
    let timer: NodeJS.Timeout | undefined;
    try {
      await arrival;
      e.cancel();
      // A generous deadline: only an activity that waits for the answer reaches it.
      const hung = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('the request was not aborted')), 60_000); });
      await assert.rejects(Promise.race([run, hung]), (err: unknown) => err instanceof CancelledFailure || (err instanceof ApplicationFailure && /abort/i.test(err.message)));
    } finally {
      clearTimeout(timer);
      release();
    }
  });
});

function page(urls: string[], opts: { status?: string; next?: string | null; credits?: number } = {}) {
  return {
    success: true,
    status: opts.status ?? 'completed',
    total: urls.length,
    completed: urls.length,
    creditsUsed: opts.credits ?? urls.length,
    next: opts.next ?? null,
    data: urls.map((u) => ({ markdown: `# ${u}`, metadata: { sourceURL: u, url: u, statusCode: 200 } })),
  };
}

describe('collectors', () => {
  const urls = Array.from({ length: 250 }, (_, i) => `http://site.test/p/${i}`);
  function pagedHandler(status = 'completed') {
    return (req: { path: string; query: Record<string, string> }, base: string) => {
      if (req.path.endsWith('/errors')) return { body: { success: true, errors: [{ id: 'e1', url: 'http://site.test/bad', error: 'HTTP 500' }], robotsBlocked: ['http://site.test/private'] } };
      const skip = Number(req.query.skip ?? 0);
      const limit = Number(req.query.limit ?? 100);
      const slice = urls.slice(skip, skip + limit);
      const more = skip + slice.length < urls.length;
      return { body: { ...page(slice, { status, credits: 250 }), total: 250, completed: 250, next: more ? `${base}/v2/crawl/${JOB}?skip=${skip + slice.length}` : null } };
    };
  }

  test('pages every result into the store once; a second run writes nothing new', async () => {
    server.handler = pagedHandler();
    const first = await call(env(), acts.collectCrawl, { runId: 'collect-1', jobId: JOB });
    assert.equal(first.documents, 250);
    assert.equal(first.written, 250);
    assert.equal(first.failures, 2);
    assert.equal(first.pages, 3);
    const again = await call(env(), acts.collectCrawl, { runId: 'collect-1', jobId: JOB });
    assert.equal(again.documents, 250);
    assert.equal(again.written, 0);
  });

  test('heartbeats while an append waits on a held store lock, then fails typed and retryable; the retry stores each page once', async () => {
    server.handler = pagedHandler();
    const root = mkdtempSync(join(tmpdir(), 'wd-acts-lock-'));
    const lockedStore = new FilesystemStore({ root, lockTimeoutMs: 3_000 });
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
    try {
      const lockedActs = createActivities({ client, store: lockedStore, heartbeatEveryMs: 50 });
      mkdirSync(join(root, 'collect-lock'));
      const lock = join(root, 'collect-lock', 'documents.lock');
      writeFileSync(lock, JSON.stringify({ pid: holder.pid, host: hostname(), token: 'live-holder' }));
      const e = env();
      const beats: unknown[] = [];
      e.on('heartbeat', (d: unknown) => beats.push(d));
      const failure = await failureOf(call(e, lockedActs.collectCrawl, { runId: 'collect-lock', jobId: JOB }));
      assert.equal(failure.type, 'store_lock_timeout');
      assert.equal(failure.nonRetryable, false);
      assert.match(failure.message, new RegExp(`documents\\.lock, held by pid ${holder.pid} on `));
      // One heartbeat a second during the 3 s wait: the activity is not taken for dead (heartbeat timeout 10 s).
      assert.ok(beats.length >= 2, `only ${beats.length} heartbeats while waiting`);
      assert.deepEqual(beats.at(-1), { skip: 0, pages: 1, written: 0 });
      holder.kill('SIGKILL');
      const retried = await call(env({ heartbeatDetails: beats.at(-1) }), lockedActs.collectCrawl, { runId: 'collect-lock', jobId: JOB });
      assert.equal(retried.documents, 250);
      assert.equal(retried.written, 250);
    } finally {
      holder.kill('SIGKILL');
      await lockedStore.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('keeps each page\'s json and summary answers (crawl and batch), none invented for pages without', async () => {
    const answered = ['http://site.test/a', 'http://site.test/b'];
    const body = () => {
      const res = page([...answered, 'http://site.test/plain']);
      res.data.forEach((d, i) => {
        if (i < answered.length) Object.assign(d, { json: { title: `page ${i}`, tags: [i, null] }, summary: `About page ${i}.` });
      });
      return { body: res };
    };
    server.handler = (req) => (req.path.endsWith('/errors') ? { body: { success: true, errors: [], robotsBlocked: [] } } : body());
    for (const [fn, runId] of [[acts.collectCrawl, 'answers-crawl'], [acts.collectBatch, 'answers-batch']] as const) {
      const res = await call(env(), fn as typeof acts.collectCrawl, { runId, jobId: JOB });
      assert.equal(res.written, 3);
      const docs = new Map<string, Record<string, unknown>>();
      for await (const d of store.readDocuments(runId)) docs.set(d.url, d);
      assert.deepEqual(docs.get(answered[1])?.json, { title: 'page 1', tags: [1, null] }, runId);
      assert.equal(docs.get(answered[0])?.summary, 'About page 0.', runId);
      assert.ok(!('json' in docs.get('http://site.test/plain')!) && !('summary' in docs.get('http://site.test/plain')!), runId);
    }
  });

  test('resumes from the last heartbeat cursor', async () => {
    server.handler = pagedHandler();
    const resumed = await call(env({ heartbeatDetails: { skip: 200, pages: 2, written: 200 } }), acts.collectCrawl, { runId: 'collect-2', jobId: JOB });
    const statusRequests = server.requests.filter((r) => !r.path.endsWith('/errors'));
    assert.equal(statusRequests[0].query.skip, '200');
    assert.equal(resumed.documents, 50); // only the pages after the cursor were fetched into this run
    assert.equal(resumed.pages, 3);
  });

  test('stops on a running job whose next repeats the cursor', async () => {
    server.handler = (req, base) => req.path.endsWith('/errors')
      ? { body: { success: true, errors: [], robotsBlocked: [] } }
      : { body: page(urls.slice(0, 10), { status: 'scraping', next: `${base}/v2/crawl/${JOB}?skip=0` }) };
    const res = await call(env(), acts.collectCrawl, { runId: 'collect-3', jobId: JOB, pageSize: 100 });
    assert.equal(res.status, 'scraping');
    assert.equal(res.documents, 10);
    assert.ok(server.requests.filter((r) => !r.path.endsWith('/errors')).length <= 2, 'kept polling a repeating next');
  });
});

describe('a follower whose job is lost', () => {
  test('stores what it read, then ends with its cursor and the last bill instead of failing', async () => {
    const urls = ['http://site.test/a', 'http://site.test/b', 'http://site.test/c'];
    let reads = 0;
    server.handler = (req, base) => {
      reads += 1;
      // The first read shows the job running with 3 pages (5 credits billed); then it is gone.
      if (reads > 1) return { status: 404, body: { success: false, error: 'Job not found' } };
      return { body: { ...page(urls, { status: 'scraping', credits: 5 }), total: 9, next: `${base}/v2/crawl/${JOB}?skip=3` } };
    };
    const out = await call(env(), acts.followJob, { runId: 'follow-lost', jobId: JOB, kind: 'crawl' });
    assert.equal(out.kind, 'lost');
    assert.ok(out.kind === 'lost');
    assert.equal(out.cursor.skip, 3);
    assert.equal(out.cursor.written, 3);
    assert.equal(out.cursor.creditsUsed, 5);
    assert.match(out.error, /404|Job not found/);
    assert.equal((await store.count('follow-lost', { jobId: JOB })).documents, 3);
  });
});

describe('a follower given the crawl\'s limit', () => {
  const urls = ['http://site.test/a', 'http://site.test/b'];
  const handler = (credits: () => { status?: number; body: unknown }) => (req: { path: string }) => {
    if (req.path.endsWith('/credit-usage')) return credits();
    if (req.path.endsWith('/errors')) return { body: { success: true, errors: [], robotsBlocked: [] } };
    return { body: page(urls) };
  };
  const usage = { body: { success: true, data: { remainingCredits: 7, planCredits: 500, billingPeriodStart: null, billingPeriodEnd: null } } };

  test('a job that ended short of it: the team\'s credits left come with the result (the workflow reads none)', async () => {
    server.handler = handler(() => usage);
    const out = await call(env(), acts.followJob, { runId: 'follow-short', jobId: JOB, kind: 'crawl', limitCut: { requested: 5 } });
    assert.ok(out.kind === 'done');
    assert.equal(out.collected.documents, 2);
    assert.equal(out.collected.teamCreditsLeft, 7);
  });

  test('a job that reached it, or a failed read: no credits read, or none answered', async () => {
    server.handler = handler(() => usage);
    const reached = await call(env(), acts.followJob, { runId: 'follow-reached', jobId: JOB, kind: 'crawl', limitCut: { requested: 2 } });
    assert.ok(reached.kind === 'done');
    assert.equal(reached.collected.teamCreditsLeft, undefined);
    assert.ok(!server.requests.some((r) => r.path.endsWith('/credit-usage')), 'read the credits of a job that reached its limit');
    server.handler = handler(() => ({ status: 404, body: { success: false, error: 'Not Found' } }));
    const failed = await call(env(), acts.followJob, { runId: 'follow-no-credits', jobId: JOB, kind: 'crawl', limitCut: { requested: 5 } });
    assert.ok(failed.kind === 'done');
    assert.equal(failed.collected.documents, 2);
    assert.equal(failed.collected.teamCreditsLeft, undefined);
  });
});

describe('a follower at the end of a job', () => {
  test('reads again at once when the status shows nothing left to scrape, not after its idle pause', { timeout: 20_000 }, async () => {
    // An idle pause of a minute: the test's timeout ends a follower that waits it out.
    const slow = createActivities({ client, store, heartbeatEveryMs: 50, followIdleMs: 60_000 });
    const urls = ['http://site.test/a', 'http://site.test/b'];
    let reads = 0;
    server.handler = (req, base) => {
      if (req.path.endsWith('/errors')) return { body: { success: true, errors: [], robotsBlocked: [] } };
      reads += 1;
      // Every page it knows of scraped, still running; the next read finds it completed.
      if (reads === 1) return { body: { ...page(urls, { status: 'scraping' }), next: `${base}/v2/crawl/${JOB}?skip=2` } };
      return { body: page([], { status: 'completed' }) };
    };
    const out = await call(env(), slow.followJob, { runId: 'follow-ending', jobId: JOB, kind: 'crawl' });
    assert.ok(out.kind === 'done');
    assert.equal(out.collected.documents, 2);
    assert.equal(reads, 2);
  });

  test('keeps up with a job that moves: reads again well before its idle pause, each page stored once', { timeout: 20_000 }, async () => {
    // An idle pause of a minute, a job far from its end (1,000 pages known) that brings 10 new
    // pages at every read: a follower that waited out the pause would meet the test's timeout.
    const slow = createActivities({ client, store, heartbeatEveryMs: 50, followIdleMs: 60_000 });
    const urls = Array.from({ length: 50 }, (_, i) => `http://site.test/p${i}`);
    let reads = 0;
    server.handler = (req, base) => {
      if (req.path.endsWith('/errors')) return { body: { success: true, errors: [], robotsBlocked: [] } };
      reads += 1;
      const skip = Number(req.query.skip ?? 0);
      const known = urls.slice(0, reads * 10);
      const data = known.slice(skip);
      if (known.length === urls.length) return { body: { ...page(data), total: urls.length, completed: urls.length } };
      return { body: { ...page(data, { status: 'scraping', next: `${base}/v2/crawl/${JOB}?skip=${known.length}` }), total: 1000, completed: known.length } };
    };
    const out = await call(env(), slow.followJob, { runId: 'follow-moving', jobId: JOB, kind: 'crawl' });
    assert.ok(out.kind === 'done');
    assert.equal(out.collected.documents, urls.length);
    assert.equal(reads, 5);
    const stored: string[] = [];
    for await (const d of store.readDocuments('follow-moving')) stored.push(d.url);
    assert.deepEqual(stored.sort(), [...urls].sort());
  });
});

describe('job starts never pay twice', () => {
  test('sends the idempotency key', async () => {
    server.handler = () => ({ body: { success: true, id: JOB, url: `${server.base}/v2/crawl/${JOB}` } });
    const key = '0190a7a0-0000-7000-8000-00000000abcd';
    const res = await call(env(), acts.startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: key });
    assert.deepEqual(res, { jobId: JOB, recovered: false });
    assert.equal(server.requests[0].headers['x-idempotency-key'], key);
  });

  test('a 409 carrying the original id is recovered from the body', async () => {
    server.handler = () => ({ status: 409, body: { success: false, error: 'Idempotency key already used', id: JOB } });
    const res = await call(env(), acts.startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: '0190a7a0-0000-7000-8000-00000000abcd' });
    assert.deepEqual(res, { jobId: JOB, recovered: true });
  });

  test('a 409 without an id is recovered from the active crawls, matched on URL and start time', async () => {
    const other = '0190a7a0-0000-7000-8000-000000000002';
    server.handler = (req) => {
      if (req.method === 'POST') return { status: 409, body: { success: false, error: 'Idempotency key already used' } };
      if (req.path === '/v2/crawl/active') {
        return {
          body: {
            success: true,
            crawls: [
              { id: other, teamId: 't', url: 'http://other.test/', created_at: new Date().toISOString() },
              { id: JOB, teamId: 't', url: 'http://site.test/', created_at: new Date().toISOString() },
            ],
          },
        };
      }
      return { status: 404, body: { success: false, error: 'unexpected' } };
    };
    const res = await call(env({ scheduledTimestampMs: Date.now() - 1000 }), acts.startCrawl, { body: { url: 'http://site.test/' }, idempotencyKey: '0190a7a0-0000-7000-8000-00000000abcd' });
    assert.deepEqual(res, { jobId: JOB, recovered: true });
    assert.equal(server.requests.filter((r) => r.method === 'POST').length, 1, 'a second job was started');
  });
});

describe('link lists', () => {
  test('map results stay in the store; selection applies include/exclude and limit in order', async () => {
    const links = ['/', '/docs', '/docs/a', '/docs/b', '/blog/x', '/docs/private/z'].map((p) => ({ url: `http://site.test${p}` }));
    server.handler = () => ({ body: { success: true, links } });
    const mapped = await call(env(), acts.mapToStore, { runId: 'links-1', body: { url: 'http://site.test/' } });
    assert.equal(mapped.count, 6);
    assert.ok(mapped.sample.length <= 5);
    const selected = await call(env(), acts.selectUrls, { runId: 'links-1', fromList: 'mapped', toList: 'selected', include: ['^/docs'], exclude: ['/private/'], limit: 2 });
    assert.equal(selected.count, 2);
    assert.deepEqual(selected.sample, ['http://site.test/docs', 'http://site.test/docs/a']);
  });
});
