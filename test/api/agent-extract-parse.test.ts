// Client methods of agent, extract, parse, queue status and token usage: the request each
// sends, local validation before sending (no request reaches the server), and every error kind.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PARSE_FILE_BYTES, WebDataApiError, WebDataClient } from '../../packages/client/src/index.js';
import { FakeServer, withOwnServer, type FakeResponse } from './fake-server.js';

const API_KEY = 'fc-secret-key-0123456789abcdef';
const ID = '01890f3c-7b1a-7cc2-9d3e-4f5a6b7c8d9e';
const URL1 = 'https://example.com/';

const server = new FakeServer();
let client: WebDataClient;
let dir: string;

before(async () => {
  await server.start();
  client = new WebDataClient({ apiKey: API_KEY, baseUrl: server.base, timeoutMs: 5_000 });
  dir = await mkdtemp(join(tmpdir(), 'webdata-parse-'));
});
after(async () => {
  await client.close();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
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

/** A local validation error, and nothing sent. */
async function refusedLocally(p: Promise<unknown>, code = 'LOCAL_VALIDATION'): Promise<WebDataApiError> {
  const err = await rejects(p);
  assert.equal(err.kind, 'validation');
  assert.equal(err.code, code);
  assert.equal(err.status, undefined);
  assert.equal(server.requests.length, 0, 'no request reached the server');
  return err;
}

interface Method {
  name: string;
  call: (c: WebDataClient) => Promise<unknown>;
  method: string;
  path: string;
  response: unknown;
  query?: Record<string, string>;
  body?: unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each case reads its own response type
  check: (result: any) => void;
}

const parseDoc = { success: true, data: { markdown: '# Title', metadata: { sourceURL: 'report.txt', statusCode: 200 } } };

const methods: Method[] = [
  {
    name: 'startAgent',
    call: (c) => c.startAgent({ prompt: 'Find the price of plan A', urls: [URL1], maxCredits: 20, schema: { type: 'object' } }),
    method: 'POST',
    path: '/v2/agent',
    body: { prompt: 'Find the price of plan A', urls: [URL1], maxCredits: 20, schema: { type: 'object' } },
    response: { success: true, id: ID },
    check: (r) => assert.deepEqual(r, { success: true, id: ID }),
  },
  {
    name: 'getAgent',
    call: (c) => c.getAgent(ID),
    method: 'GET',
    path: `/v2/agent/${ID}`,
    response: { success: true, status: 'completed', data: { price: 10 }, creditsUsed: 3, expiresAt: '2030-01-01T00:00:00.000Z' },
    check: (r) => {
      assert.equal(r.status, 'completed');
      assert.deepEqual(r.data, { price: 10 });
      assert.equal(r.creditsUsed, 3);
    },
  },
  {
    name: 'cancelAgent',
    call: (c) => c.cancelAgent(ID),
    method: 'DELETE',
    path: `/v2/agent/${ID}`,
    response: { success: true },
    check: (r) => assert.equal(r.success, true),
  },
  {
    name: 'startExtract',
    call: (c) => c.startExtract({ urls: [URL1], prompt: 'The title', showSources: true, scrapeOptions: { onlyMainContent: true } }),
    method: 'POST',
    path: '/v2/extract',
    body: { urls: [URL1], prompt: 'The title', showSources: true, scrapeOptions: { onlyMainContent: true } },
    response: { success: true, id: ID },
    check: (r) => assert.equal(r.id, ID),
  },
  {
    name: 'getExtract',
    call: (c) => c.getExtract(ID),
    method: 'GET',
    path: `/v2/extract/${ID}`,
    response: { success: true, status: 'processing', expiresAt: '2030-01-01T00:00:00.000Z' },
    check: (r) => {
      assert.equal(r.status, 'processing');
      assert.equal(r.success, true);
    },
  },
  {
    name: 'parse (Buffer)',
    call: (c) => c.parse(Buffer.from('hello parse'), { filename: 'report.txt', options: { formats: ['markdown'] } }),
    method: 'POST',
    path: '/v2/parse',
    response: parseDoc,
    check: (r) => assert.equal(r.data.markdown, '# Title'),
  },
  {
    name: 'getQueueStatus',
    call: (c) => c.getQueueStatus(),
    method: 'GET',
    path: '/v2/team/queue-status',
    response: { success: true, jobsInQueue: 5, activeJobsInQueue: 2, waitingJobsInQueue: 3, maxConcurrency: 2, mostRecentSuccess: '2030-01-01T00:00:00.000Z' },
    check: (r) => {
      assert.equal(r.jobsInQueue, 5);
      assert.equal(r.mostRecentSuccess, '2030-01-01T00:00:00.000Z');
    },
  },
  {
    name: 'getTokenUsage',
    call: (c) => c.getTokenUsage(),
    method: 'GET',
    path: '/v2/team/token-usage',
    response: { success: true, data: { remainingTokens: 900, planTokens: 1000 } },
    check: (r) => assert.equal(r.data.remainingTokens, 900),
  },
  {
    name: 'getHistoricalTokenUsage',
    call: (c) => c.getHistoricalTokenUsage({ byApiKey: true }),
    method: 'GET',
    path: '/v2/team/token-usage/historical',
    query: { byApiKey: 'true' },
    response: { success: true, periods: [{ startDate: '2030-01-01T00:00:00.000Z', endDate: '2030-02-01T00:00:00.000Z', apiKey: 'k', totalTokens: 42 }] },
    check: (r) => assert.equal(r.periods[0].totalTokens, 42),
  },
];

describe('each new method sends one request and returns the typed answer', () => {
  for (const m of methods) {
    test(m.name, async () => {
      server.reset(() => ({ status: 200, body: m.response }));
      const result = await m.call(client);
      assert.equal(server.requests.length, 1, 'exactly one request');
      const req = server.requests[0]!;
      assert.equal(req.method, m.method);
      assert.equal(req.path, m.path);
      assert.equal(req.headers.authorization, `Bearer ${API_KEY}`);
      if (m.query) assert.deepEqual(req.query, m.query);
      if (m.body !== undefined) assert.deepEqual(req.body, m.body);
      m.check(result);
    });
  }
});

describe('error kinds: each method, one attempt per call', () => {
  const cases: Array<{ label: string; response: FakeResponse; kind: string; retryable: boolean; retryAfterMs?: number }> = [
    { label: '400', response: { status: 400, body: { success: false, error: 'Bad Request', code: 'BAD_REQUEST', details: [{ path: 'x', message: 'bad' }] } }, kind: 'validation', retryable: false },
    { label: '401', response: { status: 401, body: { success: false, error: 'Unauthorized' } }, kind: 'unauthorized', retryable: false },
    { label: '402', response: { status: 402, body: { success: false, error: 'Insufficient credits' } }, kind: 'insufficient_credits', retryable: false },
    { label: '403', response: { status: 403, body: { success: false, error: 'Forbidden' } }, kind: 'forbidden', retryable: false },
    { label: '404 JSON', response: { status: 404, body: { success: false, error: 'Job not found' } }, kind: 'not_found', retryable: false },
    { label: '404 HTML (missing route)', response: { status: 404, raw: '<pre>Cannot POST /v2/x</pre>' }, kind: 'not_available', retryable: false },
    { label: '429 with Retry-After', response: { status: 429, body: { success: false, error: 'Rate limit exceeded' }, headers: { 'retry-after': '7' } }, kind: 'rate_limited', retryable: true, retryAfterMs: 7000 },
    { label: '500', response: { status: 500, body: { success: false, error: 'boom', code: 'UNKNOWN_ERROR' } }, kind: 'server', retryable: true },
    { label: '503', response: { status: 503, body: { success: false, error: 'Service unavailable' } }, kind: 'server', retryable: true },
    // A service without a model stays so until its operator sets one: retrying cannot help.
    { label: '503 AI_NOT_CONFIGURED', response: { status: 503, body: { success: false, error: 'AI not configured', code: 'AI_NOT_CONFIGURED' } }, kind: 'server', retryable: false },
  ];
  // Without holding after a Retry-After (test/api/retry-after.test.ts covers the hold): here the
  // 429 case would make the next case of each method wait out its 7 s.
  let unheld: WebDataClient;
  before(() => {
    unheld = new WebDataClient({ apiKey: API_KEY, baseUrl: server.base, timeoutMs: 5_000, holdOnRetryAfter: false });
  });
  after(() => unheld.close());
  for (const m of methods) {
    test(m.name, async () => {
      for (const c of cases) {
        server.reset(() => c.response);
        const err = await rejects(m.call(unheld));
        assert.equal(err.kind, c.kind, `${m.name} ${c.label}`);
        assert.equal(err.retryable, c.retryable, `${m.name} ${c.label} retryable`);
        if (c.retryAfterMs !== undefined) assert.equal(err.retryAfterMs, c.retryAfterMs);
        assert.equal(server.requests.length, 1, `${m.name} ${c.label}: one attempt`);
      }
    });
  }

  test('a 2xx body that is not JSON, or a start without id, is a retryable server error', async () => {
    server.reset(() => ({ status: 200, raw: '<html>proxy</html>' }));
    assert.equal((await rejects(client.getAgent(ID))).code, 'INVALID_RESPONSE');
    server.reset(() => ({ status: 200, body: { success: true } }));
    const noId = await rejects(client.startAgent({ prompt: 'x' }));
    assert.equal(noId.kind, 'server');
    assert.equal(noId.code, 'INVALID_RESPONSE');
    server.reset(() => ({ status: 200, body: { success: true } }));
    assert.equal((await rejects(client.getExtract(ID))).code, 'INVALID_RESPONSE');
  });

  test('network failure and caller abort', async () => {
    const dead = new WebDataClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', timeoutMs: 2_000 });
    try {
      assert.equal((await rejects(dead.getQueueStatus())).kind, 'network');
    } finally {
      await dead.close();
    }
    await withOwnServer(() => ({ status: 200, body: { success: true, id: ID }, delayMs: 2_000 }), async (own) => {
      const c = new WebDataClient({ apiKey: API_KEY, baseUrl: own.base, timeoutMs: 5_000 });
      try {
        const ac = new AbortController();
        const pending = c.startExtract({ urls: [URL1], prompt: 'p' }, { signal: ac.signal });
        setTimeout(() => ac.abort(), 50);
        const err = await rejects(pending);
        assert.equal(err.code, 'ABORTED');
      } finally {
        await c.close();
      }
    });
  });

  test('a slow answer is a client timeout', async () => {
    await withOwnServer(() => ({ status: 200, body: { success: true }, delayMs: 1_000 }), async (own) => {
      const c = new WebDataClient({ apiKey: API_KEY, baseUrl: own.base, timeoutMs: 5_000 });
      try {
        const err = await rejects(c.getTokenUsage({ timeoutMs: 100 }));
        assert.equal(err.kind, 'timeout');
        assert.equal(err.retryable, true);
      } finally {
        await c.close();
      }
    });
  });
});

describe('invalid input is refused before sending', () => {
  test('agent', async () => {
    await refusedLocally(client.startAgent({ prompt: '' }));
    await refusedLocally(client.startAgent({ prompt: 'x', urls: ['ftp://example.com/'] }));
    await refusedLocally(client.startAgent({ prompt: 'x', maxCredits: 0 }));
    await refusedLocally(client.startAgent({ prompt: 'x', strictConstrainToURLs: true }));
    await refusedLocally(client.startAgent({ prompt: 'x', unknown: 1 } as never));
    await refusedLocally(client.getAgent('not-a-uuid'));
    await refusedLocally(client.cancelAgent('nope'));
  });

  test('extract', async () => {
    const err = await refusedLocally(client.startExtract({ urls: [URL1] }));
    assert.match(err.message, /prompt or schema is required/);
    await refusedLocally(client.startExtract({ urls: [], prompt: 'x' }));
    await refusedLocally(client.startExtract({ urls: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}`), prompt: 'x' }));
    await refusedLocally(client.startExtract({ urls: [URL1], prompt: 'x', scrapeOptions: { formats: ['nope'] } } as never));
    await refusedLocally(client.getExtract('123'));
  });

  test('token usage history query', async () => {
    await refusedLocally(client.getHistoricalTokenUsage({ byApiKey: 'yes' } as never));
    await refusedLocally(client.getHistoricalTokenUsage({ other: true } as never));
  });

  test('parse: options, missing file, wrong input kind', async () => {
    await refusedLocally(client.parse(Buffer.from('x'), { options: { formats: ['nope'] } } as never));
    await refusedLocally(client.parse(Buffer.from('x'), { options: { parsers: ['docx'] } } as never));
    await refusedLocally(client.parse(join(dir, 'missing.pdf')), 'FILE_NOT_READABLE');
    await refusedLocally(client.parse(dir), 'FILE_NOT_READABLE');
    await refusedLocally(client.parse(42 as never));
    await refusedLocally(client.parse(Buffer.from('x'), { filename: '' }));
  });

  test('parse: over 50 MB from a Buffer, a path and a stream, with a clear message', async () => {
    const big = Buffer.alloc(MAX_PARSE_FILE_BYTES + 1);
    const fromBuffer = await refusedLocally(client.parse(big, { filename: 'big.pdf' }), 'FILE_TOO_LARGE');
    assert.match(fromBuffer.message, /parse file: is over the 50 MB limit \(52428800 bytes\): 52428801 bytes/);
    const path = join(dir, 'big.pdf');
    await writeFile(path, big);
    await refusedLocally(client.parse(path), 'FILE_TOO_LARGE');
    let produced = 0;
    const chunk = Buffer.alloc(1024 * 1024);
    const stream = new Readable({
      read() {
        produced += chunk.length;
        this.push(produced > MAX_PARSE_FILE_BYTES + 4 * chunk.length ? null : chunk);
      },
    });
    await refusedLocally(client.parse(stream, { filename: 'big.pdf' }), 'FILE_TOO_LARGE');
    assert.ok(stream.destroyed, 'the stream is destroyed once over the limit');
  });
});

describe('parse uploads multipart', () => {
  test('from a path: file field with the base name and the type from the extension, options as JSON', async () => {
    const path = join(dir, 'notes.html');
    await writeFile(path, '<h1>Hi</h1>');
    server.reset(() => ({ status: 200, body: parseDoc }));
    await client.parse(path, { options: { formats: ['markdown', 'html'] } });
    const req = server.requests[0]!;
    assert.match(String(req.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.match(req.rawBody, /name="file"; filename="notes.html"\r\nContent-Type: text\/html\r\n\r\n<h1>Hi<\/h1>/);
    assert.match(req.rawBody, /name="options"\r\n\r\n\{"formats":\["markdown","html"\]\}/);
  });

  test('from a stream, with an explicit content type and without options', async () => {
    server.reset(() => ({ status: 200, body: parseDoc }));
    await client.parse(Readable.from([Buffer.from('line one\n'), 'line two\n']), { contentType: 'text/plain' });
    const req = server.requests[0]!;
    assert.match(req.rawBody, /name="file"; filename="upload.txt"\r\nContent-Type: text\/plain\r\n\r\nline one\nline two\n/);
    assert.doesNotMatch(req.rawBody, /name="options"/);
  });

  test('exactly 50 MB is sent', async () => {
    server.reset(() => ({ status: 200, body: parseDoc }));
    await client.parse(Buffer.alloc(MAX_PARSE_FILE_BYTES, 0x61), { filename: 'max.txt' }, { timeoutMs: 30_000 });
    assert.equal(server.requests.length, 1);
    assert.ok(server.requests[0]!.rawBody.length > MAX_PARSE_FILE_BYTES);
  });
});
