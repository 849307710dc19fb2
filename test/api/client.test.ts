import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebDataApiError, WebDataClient, type JobStatusResponse } from '../../packages/client/src/index.js';
import { FakeServer, withOwnServer, type RecordedRequest } from './fake-server.js';

const API_KEY = 'fc-secret-key-0123456789abcdef';
const ID = '01890f3c-7b1a-7cc2-9d3e-4f5a6b7c8d9e';
const IDEM = '3b241101-e2bb-4255-8caf-4136c566a962';
const URL1 = 'https://example.com/';

const server = new FakeServer();
let client: WebDataClient;

before(async () => {
  await server.start();
  // One client for every canned answer: the 429s of one test must not hold the next test's calls.
  client = new WebDataClient({ apiKey: API_KEY, baseUrl: server.base, timeoutMs: 5_000, holdOnRetryAfter: false });
});
after(async () => {
  await client.close();
  await server.stop();
});
beforeEach(() => server.reset(() => ({ status: 200, body: { success: true } })));

async function rejects(p: Promise<unknown>): Promise<WebDataApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof WebDataApiError, `expected WebDataApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

function only(): RecordedRequest {
  assert.equal(server.requests.length, 1, 'exactly one request');
  return server.requests[0];
}

const statusBody = (over: Partial<JobStatusResponse> = {}) => ({
  success: true,
  status: 'completed',
  total: 1,
  completed: 1,
  creditsUsed: 1,
  expiresAt: '2030-01-01T00:00:00Z',
  next: null,
  data: [{ markdown: '# a', metadata: { sourceURL: 'https://example.com/a', statusCode: 200 } }],
  ...over,
});

describe('every method sends the right request', () => {
  interface Case {
    name: string;
    call: (c: WebDataClient) => Promise<unknown>;
    method: string;
    path: string;
    query?: Record<string, string>;
    body?: unknown;
    response?: unknown;
    check?: (result: unknown) => void;
  }
  const cases: Case[] = [
    {
      name: 'scrape',
      call: (c) => c.scrape({ url: URL1, formats: ['markdown', { type: 'screenshot', fullPage: true }], origin: 'sdk' }),
      method: 'POST',
      path: '/v2/scrape',
      body: { url: URL1, formats: ['markdown', { type: 'screenshot', fullPage: true }], origin: 'sdk' },
      response: { success: true, data: { markdown: 'x', metadata: { scrapeId: ID } } },
      check: (r) => assert.equal((r as { data: { metadata: { scrapeId: string } } }).data.metadata.scrapeId, ID),
    },
    { name: 'getScrape', call: (c) => c.getScrape(ID), method: 'GET', path: `/v2/scrape/${ID}` },
    {
      name: 'interact',
      call: (c) => c.interact(ID, { code: 'await page.title()', language: 'node', timeout: 30 }),
      method: 'POST',
      path: `/v2/scrape/${ID}/interact`,
      body: { code: 'await page.title()', language: 'node', timeout: 30 },
      response: { success: true, stdout: '', result: 'Title', stderr: null, exitCode: 0, killed: false },
      check: (r) => assert.equal((r as { result: string }).result, 'Title'),
    },
    {
      name: 'stopInteraction',
      call: (c) => c.stopInteraction(ID),
      method: 'DELETE',
      path: `/v2/scrape/${ID}/interact`,
      response: { success: true, sessionDurationMs: 1000, creditsBilled: 2 },
    },
    {
      name: 'startCrawl',
      call: (c) => c.startCrawl({ url: URL1, limit: 5, includePaths: ['^/blog'] }, { idempotencyKey: IDEM }),
      method: 'POST',
      path: '/v2/crawl',
      body: { url: URL1, limit: 5, includePaths: ['^/blog'] },
      response: { success: true, id: ID, url: `http://x/v2/crawl/${ID}` },
      check: (r) => assert.equal((r as { id: string }).id, ID),
    },
    {
      name: 'getCrawlStatus with skip/limit',
      call: (c) => c.getCrawlStatus(ID, { skip: 10, limit: 5 }),
      method: 'GET',
      path: `/v2/crawl/${ID}`,
      query: { skip: '10', limit: '5' },
      response: statusBody(),
    },
    {
      name: 'cancelCrawl (no success field)',
      call: (c) => c.cancelCrawl(ID),
      method: 'DELETE',
      path: `/v2/crawl/${ID}`,
      response: { status: 'cancelled' },
      check: (r) => assert.equal((r as { status: string }).status, 'cancelled'),
    },
    {
      name: 'getCrawlErrors',
      call: (c) => c.getCrawlErrors(ID),
      method: 'GET',
      path: `/v2/crawl/${ID}/errors`,
      response: { errors: [{ id: 'e1', url: URL1, error: 'boom' }], robotsBlocked: [] },
      check: (r) => assert.equal((r as { errors: unknown[] }).errors.length, 1),
    },
    {
      name: 'listActiveCrawls',
      call: (c) => c.listActiveCrawls(),
      method: 'GET',
      path: '/v2/crawl/active',
      response: { success: true, crawls: [{ id: ID, teamId: 't', url: URL1, options: {} }] },
      check: (r) => assert.equal((r as { crawls: unknown[] }).crawls.length, 1),
    },
    {
      name: 'previewCrawlParams',
      call: (c) => c.previewCrawlParams({ url: URL1, prompt: 'only blog posts' }),
      method: 'POST',
      path: '/v2/crawl/params-preview',
      body: { url: URL1, prompt: 'only blog posts' },
      response: { success: true, data: { url: URL1, includePaths: ['^/blog'] } },
    },
    {
      name: 'startBatchScrape',
      call: (c) => c.startBatchScrape({ urls: [URL1, 'nope'], ignoreInvalidURLs: true, formats: ['html'], maxConcurrency: 2 }, { idempotencyKey: IDEM }),
      method: 'POST',
      path: '/v2/batch/scrape',
      body: { urls: [URL1, 'nope'], ignoreInvalidURLs: true, formats: ['html'], maxConcurrency: 2 },
      response: { success: true, id: ID, url: 'http://x', invalidURLs: ['nope'] },
      check: (r) => assert.deepEqual((r as { invalidURLs: string[] }).invalidURLs, ['nope']),
    },
    {
      name: 'getBatchScrapeStatus with skip/limit',
      call: (c) => c.getBatchScrapeStatus(ID, { skip: 0, limit: 100 }),
      method: 'GET',
      path: `/v2/batch/scrape/${ID}`,
      query: { skip: '0', limit: '100' },
      response: statusBody({ creditsUsed: -1 }),
      check: (r) => assert.equal((r as JobStatusResponse).creditsUsed, -1),
    },
    {
      name: 'getBatchScrapeStatus with a next URL',
      call: (c) => c.getBatchScrapeStatus(ID, `${server.base}/v2/batch/scrape/${ID}?skip=7`),
      method: 'GET',
      path: `/v2/batch/scrape/${ID}`,
      query: { skip: '7' },
      response: statusBody(),
    },
    { name: 'cancelBatchScrape', call: (c) => c.cancelBatchScrape(ID), method: 'DELETE', path: `/v2/batch/scrape/${ID}`, response: { success: true, status: 'cancelled' } },
    {
      name: 'getBatchScrapeErrors',
      call: (c) => c.getBatchScrapeErrors(ID),
      method: 'GET',
      path: `/v2/batch/scrape/${ID}/errors`,
      response: { errors: [], robotsBlocked: ['https://example.com/private'] },
    },
    {
      name: 'map',
      call: (c) => c.map({ url: URL1, limit: 100000, sitemap: 'skip' }),
      method: 'POST',
      path: '/v2/map',
      body: { url: URL1, limit: 100000, sitemap: 'skip' },
      response: { success: true, links: [{ url: URL1 }] },
    },
    {
      name: 'search',
      call: (c) => c.search({ query: 'q', limit: 3, categories: ['github', { type: 'pdf' }], scrapeOptions: { formats: [{ type: 'markdown' }] } }),
      method: 'POST',
      path: '/v2/search',
      body: { query: 'q', limit: 3, categories: ['github', { type: 'pdf' }], scrapeOptions: { formats: [{ type: 'markdown' }] } },
      response: { success: true, data: { web: [{ url: URL1, title: 't' }] }, creditsUsed: 1 },
    },
    {
      name: 'createBrowser',
      call: (c) => c.createBrowser({ ttl: 600, activityTtl: 300, profile: { name: 'p', saveChanges: false } }),
      method: 'POST',
      path: '/v2/browser',
      body: { ttl: 600, activityTtl: 300, profile: { name: 'p', saveChanges: false } },
      response: { success: true, id: 's1', cdpUrl: 'ws://x', liveViewUrl: 'http://x' },
    },
    {
      name: 'listBrowsers',
      call: (c) => c.listBrowsers({ status: 'active' }),
      method: 'GET',
      path: '/v2/browser',
      query: { status: 'active' },
      response: { success: true, sessions: [] },
    },
    {
      name: 'deleteBrowser',
      call: (c) => c.deleteBrowser('session-1'),
      method: 'DELETE',
      path: '/v2/browser/session-1',
      response: { success: true, sessionDurationMs: 10, creditsBilled: 1 },
    },
    {
      name: 'askSupport',
      call: (c) => c.askSupport({ question: 'why did it fail?', jobId: ID, context: { a: 1 } }),
      method: 'POST',
      path: '/v2/support/ask',
      body: { question: 'why did it fail?', jobId: ID, context: { a: 1 } },
      response: { requestId: 'r', answer: 'a', confidence: 'high', fixParameters: null, validation: null, feedback: null, durationMs: 5 },
    },
    {
      name: 'getExtract',
      call: (c) => c.getExtract(ID),
      method: 'GET',
      path: `/v2/extract/${ID}`,
      response: { success: true, status: 'completed', data: { title: 'x' }, expiresAt: '2030-01-01T00:00:00Z' },
      check: (r) => assert.equal((r as { status: string }).status, 'completed'),
    },
    {
      name: 'listActivity',
      call: (c) => c.listActivity({ endpoint: 'crawl', limit: 20, cursor: 'abc' }),
      method: 'GET',
      path: '/v2/team/activity',
      query: { endpoint: 'crawl', limit: '20', cursor: 'abc' },
      response: { success: true, data: [{ id: ID, endpoint: 'crawl', created_at: 'now' }], cursor: null, has_more: false },
    },
    {
      name: 'getCreditUsage',
      call: (c) => c.getCreditUsage(),
      method: 'GET',
      path: '/v2/team/credit-usage',
      response: { success: true, data: { remainingCredits: 5, planCredits: 10 } },
    },
    {
      name: 'getHistoricalCreditUsage',
      call: (c) => c.getHistoricalCreditUsage({ byApiKey: true }),
      method: 'GET',
      path: '/v2/team/credit-usage/historical',
      query: { byApiKey: 'true' },
      response: { success: true, periods: [{ startDate: 'a', endDate: 'b', apiKey: 'k', totalCredits: 3 }] },
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      server.reset(() => ({ status: 200, body: c.response ?? { success: true } }));
      const result = await c.call(client);
      const req = only();
      assert.equal(req.method, c.method);
      assert.equal(req.path, c.path);
      assert.deepEqual(req.query, c.query ?? {});
      assert.deepEqual(req.body, c.body);
      assert.equal(req.headers.authorization, `Bearer ${API_KEY}`);
      assert.match(String(req.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      if (c.body !== undefined) assert.match(String(req.headers['content-type']), /application\/json/);
      c.check?.(result);
    });
  }

  test('idempotency key is sent as x-idempotency-key, only when given', async () => {
    server.reset(() => ({ body: { success: true, id: ID, url: 'u' } }));
    await client.startCrawl({ url: URL1 }, { idempotencyKey: IDEM });
    await client.startBatchScrape({ urls: [URL1] }, { idempotencyKey: IDEM });
    await client.startCrawl({ url: URL1 });
    assert.equal(server.requests[0].headers['x-idempotency-key'], IDEM);
    assert.equal(server.requests[1].headers['x-idempotency-key'], IDEM);
    assert.equal(server.requests[2].headers['x-idempotency-key'], undefined);
  });

  test('connections are reused across calls', async () => {
    const own = await new FakeServer().start();
    own.handler = () => ({ body: { success: true, crawls: [] } });
    const c = new WebDataClient({ apiKey: API_KEY, baseUrl: own.base });
    try {
      for (let i = 0; i < 20; i++) await c.listActiveCrawls();
      assert.equal(own.requests.length, 20);
      // The pool may open a second socket while the first is still finishing a response;
      // without reuse this would be 20.
      assert.ok(own.connections <= 2, `opened ${own.connections} connections`);
    } finally {
      await c.close();
      await own.stop();
    }
  });
});

describe('lenient responses', () => {
  test('a crawl that failed at kickoff (HTTP 200) is returned, not thrown', async () => {
    server.reset(() => ({ body: { success: false, status: 'failed', error: 'bad start', completed: 0, total: 0, data: [] } }));
    const s = await client.getCrawlStatus(ID);
    assert.equal(s.status, 'failed');
    assert.equal(s.success, false);
    assert.equal(s.error, 'bad start');
    assert.equal(s.creditsUsed, -1, 'missing creditsUsed reads as unknown (-1)');
  });

  test('extra fields pass through', async () => {
    server.reset(() => ({ body: { ...statusBody(), futureField: { a: 1 } } }));
    const s = await client.getCrawlStatus(ID);
    assert.deepEqual(s.futureField, { a: 1 });
  });

  test('a kickoff without id and a non-JSON 2xx are server errors', async () => {
    server.reset(() => ({ body: { success: true } }));
    const e1 = await rejects(client.startCrawl({ url: URL1 }));
    assert.equal(e1.kind, 'server');
    assert.equal(e1.code, 'INVALID_RESPONSE');
    server.reset(() => ({ raw: '<html>ok</html>' }));
    const e2 = await rejects(client.getCreditUsage());
    assert.equal(e2.kind, 'server');
    assert.equal(e2.retryable, true);
  });
});

describe('error kinds', () => {
  const table: Array<[number, string, boolean]> = [
    [400, 'validation', false],
    [422, 'validation', false],
    [401, 'unauthorized', false],
    [402, 'insufficient_credits', false],
    [403, 'forbidden', false],
    [404, 'not_found', false],
    [408, 'timeout', true],
    [409, 'conflict', false],
    [410, 'gone', false],
    [429, 'rate_limited', true],
    [500, 'server', true],
    [501, 'server', false],
    [502, 'server', true],
    [503, 'server', true],
    [504, 'server', true],
  ];
  for (const [status, kind, retryable] of table) {
    test(`HTTP ${status} -> ${kind}${retryable ? ' (retryable)' : ''}`, async () => {
      server.reset(() => ({ status, body: { success: false, error: `failure ${status}`, code: 'SOME_CODE', details: [{ path: 'x', message: 'y' }] } }));
      const err = await rejects(client.getCrawlStatus(ID));
      assert.equal(err.kind, kind);
      assert.equal(err.status, status);
      assert.equal(err.retryable, retryable);
      assert.equal(err.code, 'SOME_CODE');
      assert.equal(err.jobId, ID);
      assert.deepEqual(err.details, [{ path: 'x', message: 'y' }]);
      assert.match(err.message, new RegExp(`crawl status failed with HTTP ${status}: failure ${status}`));
      assert.equal(only().method, 'GET', 'one attempt only');
    });
  }

  test('409 carries the original job id from the body (idempotency recovery)', async () => {
    const original = '0190aaaa-bbbb-7ccc-8ddd-eeeeffff0000';
    server.reset(() => ({ status: 409, body: { success: false, error: 'Idempotency key already used', id: original } }));
    const err = await rejects(client.startCrawl({ url: URL1 }, { idempotencyKey: IDEM }));
    assert.equal(err.kind, 'conflict');
    assert.equal(err.jobId, original);
    server.reset(() => ({ status: 409, body: { success: false, error: 'Idempotency key already used' } }));
    const bare = await rejects(client.startCrawl({ url: URL1 }, { idempotencyKey: IDEM }));
    assert.equal(bare.kind, 'conflict');
    assert.equal(bare.jobId, undefined);
  });

  test('HTML 404 of an unknown path is not_available (the route is missing), not not_found', async () => {
    server.reset(() => ({ status: 404, raw: `<!DOCTYPE html><html><body><pre>Cannot GET /v2/scrape/${ID}</pre></body></html>` }));
    const err = await rejects(client.getScrape(ID));
    assert.equal(err.kind, 'not_available');
    assert.equal(err.retryable, false);
    assert.equal(err.status, 404);
    assert.equal(err.code, 'NOT_AVAILABLE');
    assert.equal(err.message, `scrape retrieval: not available on this service (GET /v2/scrape/${ID}): HTTP 404 Cannot GET /v2/scrape/${ID}`);
  });

  test('the open-source server\'s missing routes are not_available: support ask, batch errors, activity, history', async () => {
    server.reset((req) => ({ status: 404, raw: `<pre>Cannot ${req.method} ${req.path}</pre>` }));
    const support = await rejects(client.askSupport({ question: 'why did my crawl fail?' }));
    assert.equal(support.kind, 'not_available');
    assert.match(support.message, /not available on this service \(POST \/v2\/support\/ask\)/);
    assert.equal((await rejects(client.getBatchScrapeErrors(ID))).kind, 'not_available');
    assert.equal((await rejects(client.listActivity({}))).kind, 'not_available');
    assert.equal((await rejects(client.getHistoricalCreditUsage({}))).kind, 'not_available');
  });

  test('a JSON 404 "Job not found" stays not_found, with or without success', async () => {
    server.reset(() => ({ status: 404, body: { error: 'Job not found' } }));
    const bare = await rejects(client.getCrawlStatus(ID));
    assert.equal(bare.kind, 'not_found');
    assert.equal(bare.jobId, ID);
    server.reset(() => ({ status: 404, body: { success: false, error: 'Job not found', code: 'NOT_FOUND' } }));
    assert.equal((await rejects(client.getCrawlStatus(ID))).kind, 'not_found');
  });

  test('405 and 501 without the JSON error body, and an empty 404, are not_available; a JSON 501 stays server', async () => {
    server.reset(() => ({ status: 405, raw: 'Method Not Allowed' }));
    assert.equal((await rejects(client.getCrawlErrors(ID))).kind, 'not_available');
    server.reset(() => ({ status: 501, raw: '<html>Not Implemented</html>' }));
    assert.equal((await rejects(client.getCrawlErrors(ID))).kind, 'not_available');
    server.reset(() => ({ status: 404 }));
    assert.equal((await rejects(client.getCrawlErrors(ID))).kind, 'not_available');
    server.reset(() => ({ status: 501, body: { success: false, error: 'not implemented' } }));
    const json501 = await rejects(client.getCrawlErrors(ID));
    assert.equal(json501.kind, 'server');
    assert.equal(json501.retryable, false);
  });

  test('an HTML 500 is still a retryable server error', async () => {
    server.reset(() => ({ status: 500, raw: '<html>Internal Server Error</html>' }));
    const err = await rejects(client.getCrawlErrors(ID));
    assert.equal(err.kind, 'server');
    assert.equal(err.retryable, true);
  });

  test('requestId: the server header wins, else the id the client sent', async () => {
    server.reset(() => ({ status: 500, body: { error: 'x' }, headers: { 'x-request-id': 'srv-123' } }));
    assert.equal((await rejects(client.getCreditUsage())).requestId, 'srv-123');
    server.reset(() => ({ status: 500, body: { error: 'x' } }));
    const err = await rejects(client.getCreditUsage());
    assert.equal(err.requestId, server.requests[0].headers['x-request-id']);
  });

  test('toJSON holds the classification', async () => {
    server.reset(() => ({ status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '3' } }));
    const json = (await rejects(client.getCreditUsage())).toJSON();
    assert.equal(json.kind, 'rate_limited');
    assert.equal(json.retryable, true);
    assert.equal(json.retryAfterMs, 3000);
    assert.equal(json.status, 429);
  });
});

describe('Retry-After', () => {
  test('header in seconds', async () => {
    server.reset(() => ({ status: 429, body: { error: 'Rate limit exceeded' }, headers: { 'retry-after': '7' } }));
    assert.equal((await rejects(client.map({ url: URL1 }))).retryAfterMs, 7000);
  });

  test('header as an HTTP date', async () => {
    const when = new Date(Date.now() + 3_600_000).toUTCString();
    server.reset(() => ({ status: 503, body: { error: 'busy' }, headers: { 'retry-after': when } }));
    // The wait counts from when the client read the answer, somewhere between these two clocks.
    const sentAt = Date.now();
    const ms = (await rejects(client.map({ url: URL1 }))).retryAfterMs;
    const settledAt = Date.now();
    assert.ok(ms !== undefined && ms >= Date.parse(when) - settledAt && ms <= Date.parse(when) - sentAt, `got ${ms}`);
  });

  test('only in the message text (hosted service)', async () => {
    server.reset(() => ({
      status: 429,
      body: { success: false, error: 'Rate limit exceeded. Consumed (req/min): 101, Remaining (req/min): 0. Upgrade your plan or retry after 25s, resets at Mon Jan 01 2030' },
    }));
    const err = await rejects(client.search({ query: 'q' }));
    assert.equal(err.kind, 'rate_limited');
    assert.equal(err.retryAfterMs, 25_000);
  });

  test('the header wins over the text', async () => {
    server.reset(() => ({ status: 429, body: { error: 'retry after 25s' }, headers: { 'retry-after': '2' } }));
    assert.equal((await rejects(client.search({ query: 'q' }))).retryAfterMs, 2000);
  });

  test('absent in both: undefined', async () => {
    server.reset(() => ({ status: 429, body: { error: 'Rate limit exceeded' } }));
    assert.equal((await rejects(client.search({ query: 'q' }))).retryAfterMs, undefined);
  });
});

describe('network, timeout and abort', () => {
  test('connection refused is network and retryable', async () => {
    const dead = await new FakeServer().start();
    const base = dead.base;
    await dead.stop();
    const c = new WebDataClient({ apiKey: API_KEY, baseUrl: base, timeoutMs: 2_000 });
    const err = await rejects(c.getCreditUsage());
    await c.close();
    assert.equal(err.kind, 'network');
    assert.equal(err.retryable, true);
    assert.ok(!err.message.includes(API_KEY));
  });

  test('timeoutMs elapsed is timeout and retryable', async () => {
    const err = await withOwnServer(() => ({ delayMs: 500, body: { success: true } }), async (own) => {
      const c = new WebDataClient({ apiKey: API_KEY, baseUrl: own.base, timeoutMs: 5_000, holdOnRetryAfter: false });
      try {
        return await rejects(c.getCreditUsage({ timeoutMs: 50 }));
      } finally {
        await c.close();
      }
    });
    assert.equal(err.kind, 'timeout');
    assert.equal(err.code, 'CLIENT_TIMEOUT');
    assert.equal(err.retryable, true);
  });

  test('a caller abort is network, code ABORTED, not retryable', async () => {
    const err = await withOwnServer(() => ({ delayMs: 500, body: { success: true } }), async (own) => {
      const c = new WebDataClient({ apiKey: API_KEY, baseUrl: own.base, timeoutMs: 5_000, holdOnRetryAfter: false });
      try {
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 30);
        return await rejects(c.getCreditUsage({ signal: ac.signal }));
      } finally {
        await c.close();
      }
    });
    assert.equal(err.kind, 'network');
    assert.equal(err.code, 'ABORTED');
    assert.equal(err.retryable, false);
  });

  test('an already aborted signal sends nothing', async () => {
    const err = await rejects(client.getCreditUsage({ signal: AbortSignal.abort() }));
    assert.equal(err.code, 'ABORTED');
    assert.equal(server.requests.length, 0);
  });
});

describe('the API key never leaks', () => {
  test('server echoing the key in message, details and headers', async () => {
    server.reset((req) => ({
      status: 401,
      body: {
        success: false,
        error: `Invalid token ${API_KEY} (header was "${String(req.headers.authorization)}")`,
        details: [{ path: 'authorization', message: `got ${API_KEY}` }],
      },
    }));
    const err = await rejects(client.getCreditUsage());
    assert.equal(err.kind, 'unauthorized');
    for (const text of [err.message, JSON.stringify(err.toJSON()), JSON.stringify(err.details), JSON.stringify(err.body), String(err.stack)]) {
      assert.ok(!text.includes(API_KEY), `leaked in ${text}`);
    }
    assert.match(err.message, /\[REDACTED\]/);
  });

  test('local validation errors do not include the key', async () => {
    const err = await rejects(client.scrape({ url: 'nope', headers: { Authorization: `Bearer ${API_KEY}` } }));
    assert.ok(!JSON.stringify(err.toJSON()).includes(API_KEY));
  });
});

describe('pages()', () => {
  const doc = (i: number) => ({ markdown: `p${i}`, metadata: { sourceURL: `https://example.com/${i}` } });

  test('follows next until it is absent', async () => {
    server.reset((req, base) => {
      const skip = Number(req.query.skip ?? 0);
      const last = skip >= 4;
      return { body: statusBody({ total: 6, completed: 6, data: [doc(skip), doc(skip + 1)], next: last ? null : `${base}/v2/crawl/${ID}?skip=${skip + 2}` }) };
    });
    const first = await client.getCrawlStatus(ID);
    const seen: string[] = [];
    for await (const page of client.pages(first)) for (const d of page.data) seen.push(String(d.markdown));
    assert.deepEqual(seen, ['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    assert.equal(server.requests.length, 3);
    for (const r of server.requests) assert.equal(r.headers.authorization, `Bearer ${API_KEY}`);
  });

  test('stops on a running job whose next repeats the same skip', async () => {
    server.reset((req, base) => {
      const skip = Number(req.query.skip ?? 0);
      // Two pages exist so far; past them the running job keeps pointing at skip=2.
      const data = skip === 0 ? [doc(0), doc(1)] : [];
      return { body: statusBody({ status: 'scraping', total: 5, completed: 2, data, next: `${base}/v2/crawl/${ID}?skip=2` }) };
    });
    const first = await client.getCrawlStatus(ID);
    const pages: number[] = [];
    for await (const page of client.pages(first)) pages.push(page.data.length);
    assert.deepEqual(pages, [2]);
    assert.ok(server.requests.length <= 3, `made ${server.requests.length} requests`);
  });

  test('stops when a deployment ignores skip and repeats the same items', async () => {
    let n = 0;
    server.reset((_req, base) => ({ body: statusBody({ status: 'scraping', data: [doc(0), doc(1)], next: `${base}/v2/crawl/${ID}?skip=${(n += 2)}` }) }));
    const first = await client.getCrawlStatus(ID);
    let count = 0;
    for await (const _ of client.pages(first)) count++;
    assert.equal(count, 1);
    assert.equal(server.requests.length, 2);
  });

  test('refuses a next URL on another origin and sends it nothing', async () => {
    const foreign = await new FakeServer().start();
    try {
      server.reset(() => ({ body: statusBody({ status: 'scraping', next: `${foreign.base}/v2/crawl/${ID}?skip=1` }) }));
      const first = await client.getCrawlStatus(ID);
      const iter = client.pages(first);
      assert.equal((await iter.next()).done, false);
      const err = await rejects(iter.next());
      assert.equal(err.code, 'FOREIGN_NEXT_URL');
      assert.equal(err.retryable, false);
      assert.ok(!err.message.includes(API_KEY));
      assert.equal(foreign.requests.length, 0);
      const direct = await rejects(client.getBatchScrapeStatus(ID, `${foreign.base}/v2/batch/scrape/${ID}`));
      assert.equal(direct.code, 'FOREIGN_NEXT_URL');
      assert.equal(foreign.requests.length, 0);
    } finally {
      await foreign.stop();
    }
  });
});

describe('invalid inputs never reach the server', () => {
  const long = (n: number) => 'x'.repeat(n);
  const cases: Array<[string, (c: WebDataClient) => Promise<unknown>, RegExp]> = [
    // scrape
    ['scrape: missing url', (c) => c.scrape({} as never), /^scrape body: url: is required/],
    ['scrape: bad format', (c) => c.scrape({ url: URL1, formats: ['pdf' as never] }), /formats\.0: must be one of/],
    ['scrape: 51 actions', (c) => c.scrape({ url: URL1, actions: Array.from({ length: 51 }, () => ({ type: 'scrape' as const })) }), /actions: must have at most 50 items/],
    ['scrape: over 60 s of waiting', (c) => c.scrape({ url: URL1, waitFor: 40000, actions: [{ type: 'wait', milliseconds: 30000 }] }), /actions: total waiting/],
    ['scrape: unknown key', (c) => c.scrape({ url: URL1, bogus: true } as never), /bogus: is not a known field/],
    ['scrape: screenshot quality', (c) => c.scrape({ url: URL1, formats: [{ type: 'screenshot', quality: 200 }] }), /formats\.0\.quality: must be at most 100/],
    ['getScrape: not a uuid', (c) => c.getScrape('123'), /^scrape id: must be a UUID/],
    // interact
    ['interact: neither code nor prompt', (c) => c.interact(ID, {}), /exactly one of code or prompt is required/],
    ['interact: both code and prompt', (c) => c.interact(ID, { code: 'a', prompt: 'b' }), /exactly one of code or prompt/],
    ['interact: timeout 301', (c) => c.interact(ID, { code: 'a', timeout: 301 }), /timeout: must be at most 300/],
    ['interact: code too long', (c) => c.interact(ID, { code: long(100001) }), /code: must have at most 100000 characters/],
    ['interact: language', (c) => c.interact(ID, { code: 'a', language: 'ruby' as never }), /language: must be one of: python, node, bash/],
    ['interact: bad jobId', (c) => c.interact('../etc', { code: 'a' }), /interact jobId: must be a UUID/],
    ['stopInteraction: bad jobId', (c) => c.stopInteraction('x'), /must be a UUID/],
    // crawl
    ['crawl: limit 0', (c) => c.startCrawl({ url: URL1, limit: 0 }), /^crawl body: limit: must be at least 1$/],
    ['crawl: invalid include regex', (c) => c.startCrawl({ url: URL1, includePaths: ['(unclosed'] }), /includePaths\.0: must be a valid regular expression/],
    ['crawl: bad sitemap', (c) => c.startCrawl({ url: URL1, sitemap: 'never' as never }), /sitemap: must be one of: skip, include, only/],
    ['crawl: webhook events', (c) => c.startCrawl({ url: URL1, webhook: { url: URL1, events: ['done' as never] } }), /webhook\.events\.0: must be one of/],
    ['crawl: webhook metadata value', (c) => c.startCrawl({ url: URL1, webhook: { url: URL1, metadata: { n: 1 as never } } }), /webhook\.metadata\.n/],
    ['crawl: nested scrape option', (c) => c.startCrawl({ url: URL1, scrapeOptions: { formats: ['markdown'], waitFor: -1 } }), /scrapeOptions\.waitFor: must be at least 0/],
    ['crawl: idempotency key', (c) => c.startCrawl({ url: URL1 }, { idempotencyKey: 'not-a-uuid' }), /crawl idempotencyKey: must be a UUID/],
    ['crawl status: negative skip', (c) => c.getCrawlStatus(ID, { skip: -1 }), /skip: must be at least 0/],
    ['crawl status: limit 0', (c) => c.getCrawlStatus(ID, { limit: 0 }), /limit: must be at least 1/],
    ['crawl status: bad id', (c) => c.getCrawlStatus('abc'), /crawl id: must be a UUID/],
    ['cancelCrawl: bad id', (c) => c.cancelCrawl(''), /crawl id: must be a UUID/],
    ['getCrawlErrors: bad id', (c) => c.getCrawlErrors('x'), /crawl id: must be a UUID/],
    // params-preview
    ['preview: missing prompt', (c) => c.previewCrawlParams({ url: URL1 } as never), /prompt: is required/],
    ['preview: prompt too long', (c) => c.previewCrawlParams({ url: URL1, prompt: long(10001) }), /prompt: must have at most 10000 characters/],
    ['preview: bad url', (c) => c.previewCrawlParams({ url: 'javascript:alert(1)', prompt: 'p' }), /url: must be a valid http\(s\) URL/],
    // batch
    ['batch: empty urls', (c) => c.startBatchScrape({ urls: [] }), /urls: must have at least 1 item/],
    ['batch: invalid url', (c) => c.startBatchScrape({ urls: [URL1, 'not a url'] }), /urls\.1: must be a valid http\(s\) URL/],
    ['batch: maxConcurrency 0', (c) => c.startBatchScrape({ urls: [URL1], maxConcurrency: 0 }), /maxConcurrency: must be at least 1/],
    ['batch: unknown key', (c) => c.startBatchScrape({ urls: [URL1], scrapeOptions: {} } as never), /scrapeOptions: is not a known field/],
    ['batch status: bad page limit', (c) => c.getBatchScrapeStatus(ID, { limit: 1.5 }), /limit: must be an integer/],
    ['batch status: bad id', (c) => c.getBatchScrapeStatus('1'), /batch scrape id: must be a UUID/],
    ['cancelBatchScrape: bad id', (c) => c.cancelBatchScrape('1'), /batch scrape id: must be a UUID/],
    ['getBatchScrapeErrors: bad id', (c) => c.getBatchScrapeErrors('1'), /batch scrape id: must be a UUID/],
    // map
    ['map: limit over 100000', (c) => c.map({ url: URL1, limit: 100001 }), /^map body: limit: must be at most 100000$/],
    ['map: missing url', (c) => c.map({} as never), /url: is required/],
    ['map: bad sitemap', (c) => c.map({ url: URL1, sitemap: 'all' as never }), /sitemap: must be one of/],
    ['map: bad location country', (c) => c.map({ url: URL1, location: { country: 'USA' } }), /location\.country: must be a two-letter ISO country code/],
    // search
    ['search: query too long', (c) => c.search({ query: long(501) }), /query: must have at most 500 characters/],
    ['search: include and exclude', (c) => c.search({ query: 'q', includeDomains: ['a.com'], excludeDomains: ['b.com'] }), /excludeDomains: includeDomains and excludeDomains are mutually exclusive/],
    ['search: limit 101', (c) => c.search({ query: 'q', limit: 101 }), /limit: must be at most 100/],
    ['search: domain with protocol', (c) => c.search({ query: 'q', includeDomains: ['https://a.com'] }), /includeDomains\.0: must be a hostname only/],
    ['search: category', (c) => c.search({ query: 'q', categories: [{ type: 'video' as never }] }), /categories\.0\.type: must be one of: github, research, pdf/],
    ['search: tbs', (c) => c.search({ query: 'q', tbs: 'qdr:x' }), /tbs: must be qdr/],
    // browser
    ['browser: ttl 29', (c) => c.createBrowser({ ttl: 29 }), /^browser body: ttl: must be at least 30$/],
    ['browser: activityTtl 3601', (c) => c.createBrowser({ activityTtl: 3601 }), /activityTtl: must be at most 3600/],
    ['browser: profile name too long', (c) => c.createBrowser({ profile: { name: long(129) } }), /profile\.name: must have at most 128 characters/],
    ['browser list: bad status', (c) => c.listBrowsers({ status: 'gone' as never }), /status: must be one of: active, destroyed/],
    ['browser delete: empty id', (c) => c.deleteBrowser(''), /browser id: must not be empty/],
    // support
    ['support: empty question', (c) => c.askSupport({ question: '' }), /question: must not be empty/],
    ['support: question too long', (c) => c.askSupport({ question: long(8001) }), /question: must have at most 8000 characters/],
    ['support: rationale too long', (c) => c.askSupport({ question: 'q', rationale: long(2001) }), /rationale: must have at most 2000 characters/],
    ['support: unknown key', (c) => c.askSupport({ question: 'q', urgent: true } as never), /urgent: is not a known field/],
    ['getExtract: bad id', (c) => c.getExtract('nope'), /extract id: must be a UUID/],
    // team
    ['activity: limit 0', (c) => c.listActivity({ limit: 0 }), /limit: must be at least 1/],
    ['activity: limit 101', (c) => c.listActivity({ limit: 101 }), /limit: must be at most 100/],
    ['activity: endpoint', (c) => c.listActivity({ endpoint: 'parse' as never }), /endpoint: must be one of: scrape, crawl/],
    ['historical: byApiKey', (c) => c.getHistoricalCreditUsage({ byApiKey: 'yes' as never }), /byApiKey/],
  ];

  for (const [name, call, message] of cases) {
    test(name, async () => {
      const err = await rejects(call(client));
      assert.equal(err.kind, 'validation');
      assert.equal(err.retryable, false);
      assert.match(err.message, message);
      assert.ok(Array.isArray(err.details) && err.details.length > 0);
      assert.equal(server.requests.length, 0, 'no request reached the server');
    });
  }
});

