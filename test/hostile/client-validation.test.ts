// Hostile input against the client: for every input of every WebDataClient method, generated
// invalid values (derived from the request schemas) are refused by the client's own
// validation, with a message that names the field, and not one request reaches the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { WebDataClient } from '../../packages/client/src/client.js';
import { WebDataApiError } from '../../packages/client/src/errors.js';
import { inputCases, NO_INPUT_METHODS, NON_JSON_METHODS, VALID_ID } from './endpoints.js';

let server: Server;
let requests = 0;
let base = '';
let client: WebDataClient;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('client-validation', () => {
  before(async () => {
    server = createServer((req, res) => {
      requests += 1;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new WebDataClient({ apiKey: 'hostile-client-key', baseUrl: base });
  });

  after(async () => {
    await client?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  const RUNS = Number(process.env.HOSTILE_RUNS ?? 150);

  function escape(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }

  describe('every client input refuses invalid values before sending', () => {
    const cases = inputCases();

    test('the cases cover every method of WebDataClient that takes input', () => {
      const methods = Object.getOwnPropertyNames(WebDataClient.prototype)
        .filter((m) => m !== 'constructor' && typeof Object.getOwnPropertyDescriptor(WebDataClient.prototype, m)?.value === 'function');
      const covered = new Set(cases.map((c) => c.name.split(' ')[0]));
      // `pages` takes a `next` URL, covered below, and `monitorCheckPages` pages on from an answer
      // (its next calls go through getMonitorCheck, covered); `withApiKey` sends nothing (its key is
      // the constructor's to check: test/keys); the others take no input at all.
      const missing = methods.filter((m) => !covered.has(m) && !NO_INPUT_METHODS.includes(m) && !NON_JSON_METHODS.includes(m) && m !== 'pages' && m !== 'monitorCheckPages' && !['send', 'jobStatus', 'sameOrigin', 'withApiKey'].includes(m));
      assert.deepEqual(missing, [], `methods without hostile cases: ${missing.join(', ')}`);
    });

    for (const c of cases) {
      test(`${c.name}: refused, field named, nothing sent`, async () => {
        const before = requests;
        await fc.assert(
          fc.asyncProperty(c.arbitrary, async (invalid) => {
            let error: unknown;
            try {
              await c.call(client, invalid.value);
            } catch (err) {
              error = err;
            }
            assert.ok(error instanceof WebDataApiError, `${c.name} accepted ${invalid.rule}: ${JSON.stringify(invalid.value)?.slice(0, 300)}`);
            assert.equal(error.kind, 'validation');
            assert.equal(error.code, 'LOCAL_VALIDATION');
            assert.ok(error.message.startsWith(`${c.what}: `), error.message);
            if (invalid.path) {
              // `crawl body: scrapeOptions.waitFor: must be at most 60000`: the field (or a member
              // of it, `sources.0.type`), then its rule.
              assert.match(error.message, new RegExp(`(^|: |; )${escape(invalid.path)}(\\.[^:; ]+)?: `), `${invalid.rule}: ${error.message}`);
            }
            for (const name of invalid.names ?? []) assert.ok(error.message.includes(name), `${invalid.rule}: ${error.message}`);
          }),
          { numRuns: RUNS },
        );
        assert.equal(requests - before, 0, `${requests - before} requests reached the server`);
      });
    }

    test('pages/next URLs: a foreign origin or a non-URL is refused, nothing sent anywhere', async () => {
      let foreign = 0;
      const other = createServer((req, res) => {
        foreign += 1;
        res.end('{}');
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      const otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      try {
        const before = requests;
        const next = fc.oneof(
          fc.constant(`${otherBase}/v2/crawl/${VALID_ID}?skip=100`),
          fc.webUrl().filter((u) => !u.startsWith(base)),
          fc.constantFrom('not a url', '/v2/crawl/x', '', 'javascript:alert(1)', `${base.replace('http:', 'https:')}/v2/crawl/${VALID_ID}`),
        );
        await fc.assert(fc.asyncProperty(next, async (url) => {
          await assert.rejects(client.getCrawlStatus(VALID_ID, url), (err: unknown) => {
            assert.ok(err instanceof WebDataApiError);
            assert.ok(['INVALID_NEXT_URL', 'FOREIGN_NEXT_URL'].includes(String(err.code)), `${err.code}: ${err.message}`);
            assert.match(err.message, /next/);
            return true;
          });
          if (url === '') return; // an empty next ends the walk: nothing to follow
          const first = { success: true, status: 'scraping', total: 1, completed: 0, creditsUsed: 0, expiresAt: '', data: [], next: url };
          await assert.rejects(async () => {
            for await (const _page of client.pages(first)) { /* the first page is the caller's own */ }
          });
        }), { numRuns: 60 });
        assert.equal(requests - before, 0);
        assert.equal(foreign, 0, 'a request went to a foreign origin');
      } finally {
        other.closeAllConnections();
        await new Promise<void>((resolve) => other.close(() => resolve()));
      }
    });

    test('client options: a missing key or a non-http(s) base URL is refused by name', () => {
      fc.assert(fc.property(fc.oneof(fc.constant(''), fc.constant('   '), fc.constant(undefined), fc.integer()), (apiKey) => {
        assert.throws(() => new WebDataClient({ apiKey: apiKey as never, baseUrl: base }), /apiKey: is required/);
      }));
      fc.assert(fc.property(fc.oneof(fc.constantFrom('ftp://x.y', 'file:///etc', 'localhost:3002', '', 'ws://127.0.0.1'), fc.string({ maxLength: 10 })).filter((u) => !/^https?:\/\/./.test(u)), (baseUrl) => {
        assert.throws(() => new WebDataClient({ apiKey: 'k', baseUrl }), /baseUrl: must be a valid http\(s\) URL/);
      }));
      assert.equal(requests, 0);
    });
  });

  // After the cases above: they count every request from the start.
  test('a listed host:port is sent; the same host on another port is refused before sending, naming the entry to add', async () => {
    const listed = new WebDataClient({ apiKey: 'hostile-client-key', baseUrl: base, allowPrivateAddresses: ['127.0.0.1:3003'] });
    try {
      const before = requests;
      await listed.map({ url: 'http://127.0.0.1:3003/docs' }).catch((err: unknown) => assert.notEqual((err as WebDataApiError).code, 'PRIVATE_ADDRESS', String(err)));
      assert.equal(requests - before, 1, 'the listed host:port was not sent');
      await assert.rejects(listed.map({ url: 'http://127.0.0.1:3004/docs' }), (err: unknown) => err instanceof WebDataApiError
        && err.code === 'PRIVATE_ADDRESS'
        && err.message.endsWith('url: must be a public address: 127.0.0.1 is a loopback address (add 127.0.0.1:3004 to WEBDATA_ALLOW_PRIVATE_ADDRESSES to allow it)'));
      assert.equal(requests - before, 1, 'a refused body reached the server');
      assert.throws(() => new WebDataClient({ apiKey: 'k', baseUrl: base, allowPrivateAddresses: ['127.0.0.1:port'] }), { message: /^client options: allowPrivateAddresses: "127\.0\.0\.1:port" is not a host or host:port: must be 0 \(off\)/ });
    } finally {
      await listed.close();
    }
  });
});
