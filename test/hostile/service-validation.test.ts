// Hostile input against the local service, past the client (raw undici requests): every
// invalid request of every endpoint (the same generated values the client refuses), plus
// malformed bodies, paths and headers, answers a 4xx JSON error `{ success: false, error }`,
// never a 5xx or a dropped connection, and the service still answers afterwards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';
import { silentLogger } from '../../packages/service/src/http/logger.js';
import { browserCreateRequestSchema } from '../../packages/contract/src/schemas/index.js';
import { inputCases, toSearchParams, VALID_ID, type RawRequest } from './endpoints.js';

const KEY = 'hostile-service-key';
let service: LocalService;
let agent: Agent;
const errorsLogged: string[] = [];

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('service-validation', () => {
  before(async () => {
    service = await startLocalService({
      site: false,
      teams: [{
        id: 'hostile', apiKeys: [KEY], credits: 1000, rateLimits: {}, concurrency: 2, maxBrowserSessions: 1,
        features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
      }],
      // An unexpected exception would be logged here: there must be none.
      logger: { ...silentLogger, error: (message: string) => { errorsLogged.push(message); } },
    });
    agent = new Agent({ keepAliveTimeout: 1000, connections: 4 });
  });

  after(async () => {
    await agent?.close();
    await service?.close();
  });

  const RUNS = Number(process.env.HOSTILE_SERVICE_RUNS ?? 40);

  interface Answer { status: number; body: unknown; text: string; contentType: string }

  async function send(raw: RawRequest & { rawBody?: string | Buffer; auth?: string | null; contentType?: string }): Promise<Answer> {
    const url = new URL(raw.path, service.url);
    for (const [k, v] of toSearchParams(raw.query)) url.searchParams.append(k, v);
    const headers: Record<string, string> = { ...(raw.headers ?? {}) };
    if (raw.auth !== null) headers.authorization = raw.auth ?? `Bearer ${KEY}`;
    let body: string | Buffer | undefined = raw.rawBody;
    if (body === undefined && raw.body !== undefined) body = JSON.stringify(raw.body) ?? 'null';
    if (body !== undefined) headers['content-type'] = raw.contentType ?? 'application/json';
    const res = await request(url, { method: raw.method, headers, body, dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 });
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.statusCode, body: parsed, text, contentType: String(res.headers['content-type'] ?? '') };
  }

  function assertClientError(answer: Answer, what: string): void {
    assert.ok(answer.status >= 400 && answer.status < 500, `${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
    assert.match(answer.contentType, /^application\/json/, `${what}: content-type ${answer.contentType}`);
    const body = answer.body as { success?: unknown; error?: unknown } | undefined;
    assert.equal(body?.success, false, `${what}: ${answer.text.slice(0, 300)}`);
    assert.equal(typeof body?.error, 'string', `${what}: ${answer.text.slice(0, 300)}`);
    assert.ok((body?.error as string).length > 0);
  }

  async function healthy(): Promise<void> {
    const answer = await send({ method: 'GET', path: '/v2/team/credit-usage' });
    assert.equal(answer.status, 200, answer.text);
  }

  describe('every invalid request gets a 4xx JSON error from the service', () => {
    for (const c of inputCases()) {
      test(`${c.name}`, async () => {
        await fc.assert(
          fc.asyncProperty(c.arbitrary, async (invalid) => {
            const raw = c.http(invalid.value);
            // Values that serialize into valid ones (a query number becomes text, NaN becomes null)
            // are not invalid any more once on the wire: skip them.
            if (c.schema && c.location === 'query') fc.pre(!c.schema.safeParse(Object.fromEntries(toSearchParams(raw.query))).success);
            if (c.schema && c.location === 'body') fc.pre(!c.schema.safeParse(JSON.parse(JSON.stringify(raw.body) ?? 'null')).success);
            const answer = await send(raw);
            assertClientError(answer, `${c.name} with ${invalid.rule} (${JSON.stringify(invalid.value)?.slice(0, 200)})`);
          }),
          { numRuns: RUNS },
        );
        await healthy();
      });
    }
  });

  describe('malformed requests', () => {
    const endpoints: Array<[RawRequest['method'], string]> = [
      ['POST', '/v2/scrape'], ['POST', '/v2/crawl'], ['POST', '/v2/batch/scrape'], ['POST', '/v2/map'], ['POST', '/v2/search'],
      ['POST', '/v2/browser'], ['POST', '/v2/support/ask'], ['POST', '/v2/crawl/params-preview'], ['POST', `/v2/scrape/${VALID_ID}/interact`],
      ['DELETE', '/v2/browser'],
    ];

    test('bodies that are not JSON, or JSON of the wrong shape', async () => {
      const bodies = fc.oneof(
        fc.string({ maxLength: 40 }).filter((t) => { try { JSON.parse(t); return false; } catch { return true; } }),
        fc.constantFrom('{', '{"url":', '[1,2', '{"a":1}}', '\u0000', '{"url":"http://x"} trailing', 'null', '[]', '"x"', '1e999', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"x":1}}}'),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      );
      await fc.assert(fc.asyncProperty(fc.constantFrom(...endpoints), bodies, async ([method, path], text) => {
        // Random JSON can be a valid body of POST /v2/browser (`{}`, or no body at all: every
        // field is optional).
        if (method === 'POST' && path === '/v2/browser') {
          let parsed: unknown;
          try { parsed = text === '' ? {} : JSON.parse(text); } catch { parsed = Symbol('not JSON'); }
          fc.pre(!browserCreateRequestSchema.safeParse(parsed).success);
        }
        const answer = await send({ method, path, rawBody: text });
        if (answer.status === 200) assert.fail(`${method} ${path} accepted ${text}`);
        assertClientError(answer, `${method} ${path} with ${JSON.stringify(text)}`);
      }), { numRuns: 150 });
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
      await healthy();
    });

    test('a body over 10 MB is refused (413), the connection is not left hanging', async () => {
      const big = Buffer.alloc(10 * 1024 * 1024 + 10, 'a');
      const answer = await send({ method: 'POST', path: '/v2/scrape', rawBody: Buffer.concat([Buffer.from('{"url":"'), big, Buffer.from('"}')]) });
      assert.equal(answer.status, 413);
      assertClientError(answer, 'huge body');
      await healthy();
    });

    test('wrong content types, methods, unknown and malformed paths', async () => {
      // A JSON body under another content type is read as JSON (lenient, as the client never
      // sends one): only a body that is not JSON must be refused.
      const lenient = await send({ method: 'POST', path: '/v2/map', rawBody: '{"url":"http://127.0.0.1:9/"}', contentType: 'text/plain' });
      assert.ok(lenient.status < 500, `text/plain JSON body: ${lenient.status}`);
      const cases: Array<RawRequest & { rawBody?: string; contentType?: string; what: string }> = [
        { what: 'form body', method: 'POST', path: '/v2/map', rawBody: 'url=http://127.0.0.1:9/', contentType: 'application/x-www-form-urlencoded' },
        { what: 'unknown path', method: 'GET', path: '/v2/nothing-here' },
        { what: 'v1 path', method: 'POST', path: '/v1/scrape', body: { url: 'http://127.0.0.1:9/' } },
        { what: 'wrong method', method: 'DELETE', path: '/v2/map' },
        { what: 'wrong method on status', method: 'POST', path: `/v2/crawl/${VALID_ID}` },
        { what: 'malformed escape', method: 'GET', path: '/v2/crawl/%E0%A4%A' },
        { what: 'encoded slash id', method: 'GET', path: '/v2/crawl/..%2F..%2Fteam%2Factivity' },
        { what: 'dot segments', method: 'GET', path: '/v2/crawl/../../etc/passwd' },
        { what: 'very long id', method: 'GET', path: `/v2/crawl/${'a'.repeat(5000)}` },
        { what: 'unknown job', method: 'GET', path: `/v2/crawl/${VALID_ID}` },
        { what: 'unknown batch', method: 'DELETE', path: `/v2/batch/scrape/${VALID_ID}` },
        { what: 'unknown scrape interact', method: 'POST', path: `/v2/scrape/${VALID_ID}/interact`, body: { code: '1' } },
        { what: 'unknown session', method: 'DELETE', path: `/v2/browser/${VALID_ID}` },
        { what: 'repeated query', method: 'GET', path: '/v2/team/activity?limit=5&limit=abc&limit=500' },
        { what: 'array query', method: 'GET', path: '/v2/team/activity?limit[]=5' },
        { what: 'huge limit', method: 'GET', path: '/v2/team/activity?limit=99999999999999999999999' },
      ];
      for (const c of cases) {
        const answer = await send(c);
        if (c.what === 'repeated query') {
          // The first value counts (5 is valid): 200 is the right answer here.
          assert.ok(answer.status === 200 || (answer.status >= 400 && answer.status < 500), `${c.what}: ${answer.status}`);
          continue;
        }
        assertClientError(answer, c.what);
      }
      await healthy();
    });

    test('authorization: missing, malformed, unknown keys answer 401 JSON', async () => {
      const auths = fc.oneof(
        fc.constant(null),
        fc.constantFrom('', 'Bearer', 'Bearer ', 'bearer', `Basic ${Buffer.from(`x:${KEY}`).toString('base64')}`, `Bearer ${KEY} x`, `Token ${KEY}`, `Bearer ${KEY.toUpperCase()}`),
        fc.string({ maxLength: 30 }).filter((s) => /^[\x20-\x7e]*$/.test(s) && !s.includes(KEY)).map((s) => `Bearer ${s}`),
      );
      await fc.assert(fc.asyncProperty(auths, fc.constantFrom(...endpoints), async (auth, [method, path]) => {
        const answer = await send({ method, path, body: { url: 'http://127.0.0.1:9/' }, auth });
        assert.equal(answer.status, 401, `${String(auth)}: ${answer.status} ${answer.text}`);
        assertClientError(answer, `auth ${String(auth)}`);
        assert.ok(!answer.text.includes(KEY), 'the key was echoed');
      }), { numRuns: 60 });
      await healthy();
    });

    test('no unexpected exception was logged by the service', () => {
      assert.deepEqual(errorsLogged, []);
    });
  });
});
