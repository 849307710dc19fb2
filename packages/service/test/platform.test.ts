// The HTTP platform of the local service: auth, errors, validation, limits, faults,
// credits, scrape records, activity paging, config files, clean shutdown.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createServiceApp, startLocalService, type LocalService } from '../src/app.js';
import { ConfigError, loadConfigFile } from '../src/config/load.js';
import { HttpError } from '../src/core/http-error.js';
import { listen } from '../src/http/server.js';
import { silentLogger } from '../src/http/logger.js';
import { call, stubScrapeEngine, team } from './platform-helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PAGE = 'http://127.0.0.1:9/page';

describe('local service platform', () => {
  let svc: LocalService;
  let url: string;

  before(async () => {
    svc = await startLocalService({
      teams: [
        team('a', { apiKeys: ['key-a', 'key-a2'], features: { ignoreRobotsTxt: false, zeroDataRetention: true, searchEnterprise: [] } }),
        team('b'),
        team('limited', { rateLimits: { team: 2 } }),
        team('poor', { credits: 2 }),
        team('faulty'),
        team('paging'),
      ],
      scrapeEngine: stubScrapeEngine(),
      logger: silentLogger,
      site: false,
    });
    url = svc.url;
  });
  after(() => svc.close());

  describe('authentication', () => {
    test('missing bearer token is 401 with the error body', async () => {
      const res = await call(url, 'GET', '/v2/team/credit-usage', { key: null });
      assert.equal(res.status, 401);
      assert.equal(res.body.success, false);
      assert.match(res.body.error, /Unauthorized/);
    });

    test('unknown key and malformed header are 401', async () => {
      assert.equal((await call(url, 'GET', '/v2/team/credit-usage', { key: 'nope' })).status, 401);
      const res = await call(url, 'GET', '/v2/team/credit-usage', { key: null, headers: { authorization: 'Basic abc' } });
      assert.equal(res.status, 401);
    });

    test('every answer has an x-request-id', async () => {
      const ok = await call(url, 'GET', '/v2/team/credit-usage');
      const denied = await call(url, 'GET', '/v2/team/credit-usage', { key: null });
      assert.match(ok.headers.get('x-request-id') ?? '', UUID);
      assert.match(denied.headers.get('x-request-id') ?? '', UUID);
      assert.notEqual(ok.headers.get('x-request-id'), denied.headers.get('x-request-id'));
    });
  });

  describe('routing and request errors', () => {
    test('unknown path is a JSON 404', async () => {
      const res = await call(url, 'GET', '/v2/does-not-exist');
      assert.equal(res.status, 404);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'success']);
      assert.equal(res.body.code, 'NOT_FOUND');
    });

    test('known path with the wrong method is 405 with Allow', async () => {
      const res = await call(url, 'DELETE', '/v2/scrape');
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
      assert.equal(res.body.success, false);
    });

    test('malformed JSON is 400 BAD_REQUEST_INVALID_JSON', async () => {
      const res = await call(url, 'POST', '/v2/scrape', { body: '{"url": ' });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'BAD_REQUEST_INVALID_JSON');
    });

    test('unknown keys are 400 BAD_REQUEST with path + message details; origin/integration pass', async () => {
      const res = await call(url, 'POST', '/v2/scrape', { body: { url: PAGE, bogus: true, origin: 'js-sdk@4', integration: 'x' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'BAD_REQUEST');
      assert.deepEqual(res.body.details, [{ path: 'bogus', message: 'is not a known field' }]);
      const ok = await call(url, 'POST', '/v2/scrape', { body: { url: PAGE, origin: 'js-sdk@4', integration: 'x' } });
      assert.equal(ok.status, 200);
    });

    test('schema violations name the field', async () => {
      const res = await call(url, 'POST', '/v2/scrape', { body: { url: 'not a url', waitFor: -1 } });
      assert.equal(res.status, 400);
      const paths = res.body.details.map((d: { path: string }) => d.path).sort();
      assert.deepEqual(paths, ['url', 'waitFor']);
    });

    test('a job id that is not a UUID is 400; an unknown one is 404 "Job not found"', async () => {
      const bad = await call(url, 'GET', '/v2/scrape/not-a-uuid');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'BAD_REQUEST');
      const unknown = await call(url, 'GET', '/v2/scrape/0190b0a0-0000-7000-8000-000000000000');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error, 'Job not found');
    });

    test('bodies over 10 MB are 413 without reading them all', async () => {
      const big = `{"url":"${PAGE}","x":"${'a'.repeat(10 * 1024 * 1024)}"}`;
      const res = await call(url, 'POST', '/v2/scrape', { body: big });
      assert.equal(res.status, 413);
      assert.equal(res.body.success, false);
      // The service still answers afterwards.
      assert.equal((await call(url, 'GET', '/v2/team/credit-usage')).status, 200);
    });
  });

  describe('rate limits', () => {
    test('over the per-minute limit: 429 with Retry-After and the wait in the text', async () => {
      const key = 'key-limited';
      assert.equal((await call(url, 'GET', '/v2/team/credit-usage', { key })).status, 200);
      assert.equal((await call(url, 'GET', '/v2/team/activity', { key })).status, 200);
      const res = await call(url, 'GET', '/v2/team/credit-usage', { key });
      assert.equal(res.status, 429);
      const retryAfter = Number(res.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      const match = /^Rate limit exceeded for team: retry after (\d+)s, resets at (\S+)$/.exec(res.body.error);
      assert.ok(match, res.body.error);
      assert.equal(Number(match[1]), retryAfter);
      assert.ok(!Number.isNaN(Date.parse(match[2])));
      // Other groups and other teams are not limited.
      assert.equal((await call(url, 'POST', '/v2/scrape', { key, body: { url: PAGE } })).status, 200);
      assert.equal((await call(url, 'GET', '/v2/team/credit-usage', { key: 'key-b' })).status, 200);
    });
  });

  describe('fault injection', () => {
    const key = 'key-faulty';
    after(() => svc.faults.set('faulty', undefined));

    test('error rate on chosen routes only, marked by x-fault-injected', async () => {
      svc.faults.set('faulty', { errorRate: 1, errorStatus: 503, routes: ['GET /v2/team/credit-usage'] });
      const hit = await call(url, 'GET', '/v2/team/credit-usage', { key });
      assert.equal(hit.status, 503);
      assert.equal(hit.headers.get('x-fault-injected'), 'error');
      assert.equal(hit.body.success, false);
      assert.equal((await call(url, 'GET', '/v2/team/activity', { key })).status, 200);
      assert.equal((await call(url, 'GET', '/v2/team/credit-usage', { key: 'key-b' })).status, 200);
    });

    test('429 storm with Retry-After until it ends', async () => {
      svc.faults.set('faulty', { rateLimitStorm: { until: Date.now() + 60_000, retryAfterSec: 7 } });
      const res = await call(url, 'GET', '/v2/team/activity', { key });
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '7');
      assert.equal(res.headers.get('x-fault-injected'), 'rate_limit_storm');
      assert.match(res.body.error, /retry after 7s/);
      svc.faults.set('faulty', { rateLimitStorm: { until: Date.now() - 1, retryAfterSec: 7 } });
      assert.equal((await call(url, 'GET', '/v2/team/activity', { key })).status, 200);
    });

    test('added latency', async () => {
      svc.faults.set('faulty', { latencyMs: 150 });
      const start = Date.now();
      const res = await call(url, 'GET', '/v2/team/activity', { key });
      assert.equal(res.status, 200);
      assert.ok(Date.now() - start >= 140);
      assert.equal(res.headers.get('x-fault-injected'), 'latency');
    });

    test('kickoff failures and dropped start responses are counted per team', () => {
      svc.faults.set('faulty', { failKickoffPattern: '/broken', dropNextStartResponses: 2 });
      assert.equal(svc.faults.failsKickoff('faulty', 'http://x/broken/1'), true);
      assert.equal(svc.faults.failsKickoff('faulty', 'http://x/fine'), false);
      assert.equal(svc.faults.failsKickoff('b', 'http://x/broken/1'), false);
      assert.deepEqual([1, 2, 3].map(() => svc.faults.takeDroppedStartResponse('faulty')), [true, true, false]);
      assert.equal(svc.faults.takeDroppedStartResponse('b'), false);
    });
  });

  describe('credits and scrape records', () => {
    test('scrape charges 1 credit; 402 when none remain', async () => {
      const key = 'key-poor';
      for (let i = 0; i < 2; i++) {
        const res = await call(url, 'POST', '/v2/scrape', { key, body: { url: `${PAGE}/${i}` } });
        assert.equal(res.status, 200);
        assert.equal(res.body.data.metadata.creditsUsed, 1);
      }
      const broke = await call(url, 'POST', '/v2/scrape', { key, body: { url: PAGE } });
      assert.equal(broke.status, 402);
      assert.equal(broke.body.success, false);
      const usage = await call(url, 'GET', '/v2/team/credit-usage', { key });
      assert.equal(usage.body.data.remainingCredits, 0);
      assert.equal(usage.body.data.planCredits, 2);
    });

    test('GET /v2/scrape/:id returns the document to its team, 403 to another', async () => {
      const res = await call(url, 'POST', '/v2/scrape', { body: { url: PAGE, formats: ['markdown'] } });
      assert.equal(res.status, 200);
      assert.equal(res.body.success, true);
      const id = res.body.data.metadata.scrapeId;
      assert.match(id, UUID);
      const again = await call(url, 'GET', `/v2/scrape/${id}`);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { success: true, data: res.body.data });
      const other = await call(url, 'GET', `/v2/scrape/${id}`, { key: 'key-b' });
      assert.equal(other.status, 403);
      assert.equal(other.body.success, false);
    });

    test('engine errors keep their status and code; nothing is charged', async () => {
      const before = svc.ledger.remaining('b');
      const res = await call(url, 'POST', '/v2/scrape', { key: 'key-b', body: { url: 'http://127.0.0.1:9/timeout' } });
      assert.equal(res.status, 408);
      assert.equal(res.body.code, 'SCRAPE_TIMEOUT');
      assert.equal(svc.ledger.remaining('b'), before);
    });

    test('zeroDataRetention needs the feature and keeps nothing', async () => {
      const denied = await call(url, 'POST', '/v2/scrape', { key: 'key-b', body: { url: PAGE, zeroDataRetention: true } });
      assert.equal(denied.status, 403);
      const ok = await call(url, 'POST', '/v2/scrape', { body: { url: PAGE, zeroDataRetention: true } });
      assert.equal(ok.status, 200);
      assert.equal((await call(url, 'GET', `/v2/scrape/${ok.body.data.metadata.scrapeId}`)).status, 404);
    });

    test('historical usage by API key, month periods', async () => {
      await call(url, 'POST', '/v2/scrape', { key: 'key-a2', body: { url: PAGE } });
      const total = await call(url, 'GET', '/v2/team/credit-usage/historical');
      assert.equal(total.status, 200);
      assert.equal(total.body.periods.length, 1);
      const period = total.body.periods[0];
      assert.equal(period.apiKey, undefined);
      assert.ok(period.totalCredits >= 3);
      const byKey = await call(url, 'GET', '/v2/team/credit-usage/historical?byApiKey=true');
      const keys = byKey.body.periods.map((p: { apiKey: string }) => p.apiKey).sort();
      assert.deepEqual(keys, ['key-a', 'key-a2']);
      const sum = byKey.body.periods.reduce((s: number, p: { totalCredits: number }) => s + p.totalCredits, 0);
      assert.equal(sum, period.totalCredits);
      assert.equal(byKey.body.periods.find((p: { apiKey: string }) => p.apiKey === 'key-a2').totalCredits, 1);
      assert.equal((await call(url, 'GET', '/v2/team/credit-usage/historical?byApiKey=maybe')).status, 400);
    });
  });

  describe('activity', () => {
    test('pages across a cursor, newest first, and ids resolve with GET /v2/scrape/:id', async () => {
      const key = 'key-paging';
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await call(url, 'POST', '/v2/scrape', { key, body: { url: `${PAGE}/${i}` } });
        ids.push(res.body.data.metadata.scrapeId);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await call(url, 'GET', `/v2/team/activity${query}`, { key });
        assert.equal(res.status, 200);
        assert.ok(res.body.data.length <= 2);
        for (const item of res.body.data) {
          assert.deepEqual(Object.keys(item).sort(), ['api_version', 'created_at', 'endpoint', 'id', 'target']);
          assert.equal(item.api_version, 'v2');
          assert.equal(item.endpoint, 'scrape');
          seen.push(item.id);
        }
        assert.equal(res.body.has_more, res.body.cursor !== null);
        cursor = res.body.cursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...ids].reverse());
      assert.equal((await call(url, 'GET', `/v2/scrape/${seen[0]}`, { key })).status, 200);
    });

    test('endpoint filter, default limit and invalid queries', async () => {
      const key = 'key-paging';
      const crawl = await call(url, 'GET', '/v2/team/activity?endpoint=crawl', { key });
      assert.deepEqual(crawl.body.data, []);
      assert.equal(crawl.body.has_more, false);
      assert.equal(crawl.body.cursor, null);
      assert.equal((await call(url, 'GET', '/v2/team/activity', { key })).body.data.length, 5);
      assert.equal((await call(url, 'GET', '/v2/team/activity?limit=0', { key })).status, 400);
      assert.equal((await call(url, 'GET', '/v2/team/activity?limit=101', { key })).status, 400);
      assert.equal((await call(url, 'GET', '/v2/team/activity?endpoint=nope', { key })).status, 400);
      assert.equal((await call(url, 'GET', '/v2/team/activity?cursor=garbage', { key })).status, 400);
    });

    test('other teams do not see the activity', async () => {
      const res = await call(url, 'GET', '/v2/team/activity', { key: 'key-b' });
      assert.ok(res.body.data.every((item: { target: string }) => !item.target.startsWith(`${PAGE}/`)));
    });
  });
});

describe('handler outcomes', () => {
  test('unexpected exceptions are 500 UNKNOWN_ERROR with an exception id; dropConnection closes the socket', async () => {
    const logged: string[] = [];
    const app = createServiceApp({
      teams: [team('a')],
      scrapeEngine: stubScrapeEngine(),
      logger: { ...silentLogger, error: (m) => { logged.push(m); } },
    });
    app.router.add('GET', '/v2/test/boom', () => { throw new Error('kaboom'); }, { group: 'support' });
    app.router.add('GET', '/v2/test/http-error', () => {
      throw new HttpError(409, 'Idempotency key already used', { code: 'CONFLICT', extra: { id: 'job-1' } });
    }, { group: 'support' });
    let processed = 0;
    app.router.add('POST', '/v2/test/start', () => { processed++; return { body: { success: true }, dropConnection: true }; }, { group: 'crawl' });
    const server = await listen(app.listener);
    try {
      const boom = await call(server.url, 'GET', '/v2/test/boom');
      assert.equal(boom.status, 500);
      assert.equal(boom.body.code, 'UNKNOWN_ERROR');
      assert.match(boom.body.exceptionId, UUID);
      assert.ok(boom.body.error.includes(boom.body.exceptionId));
      assert.ok(logged.some((line) => line.includes(boom.body.exceptionId)));

      const conflict = await call(server.url, 'GET', '/v2/test/http-error');
      assert.equal(conflict.status, 409);
      assert.deepEqual(conflict.body, { id: 'job-1', success: false, error: 'Idempotency key already used', code: 'CONFLICT' });

      await assert.rejects(call(server.url, 'POST', '/v2/test/start', { body: {} }));
      assert.equal(processed, 1);
      assert.equal((await call(server.url, 'GET', '/v2/team/credit-usage')).status, 200);
    } finally {
      await server.close();
      await app.close();
    }
  });

  test('close() runs onClose hooks latest first, closes the demo site and leaves no server handle', async () => {
    const servers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    await new Promise((r) => setImmediate(r));
    const before = servers();
    const svc = await startLocalService({ teams: [team('a')], scrapeEngine: stubScrapeEngine(), logger: silentLogger, site: { pages: 3 } });
    assert.ok(svc.siteUrl);
    assert.equal((await fetch(`${svc.siteUrl}/robots.txt`)).status, 200);
    const order: string[] = [];
    svc.context.onClose(() => { order.push('first'); });
    svc.context.onClose(async () => { await new Promise((r) => setTimeout(r, 10)); order.push('second'); });
    // A keep-alive connection must not hold close() up.
    assert.equal((await call(svc.url, 'GET', '/v2/team/credit-usage')).status, 200);
    await svc.close();
    await svc.close();
    assert.deepEqual(order, ['second', 'first']);
    assert.ok(servers() <= before, 'the service left a listening server behind');
    await assert.rejects(call(svc.url, 'GET', '/v2/team/credit-usage'));
    await assert.rejects(fetch(`${svc.siteUrl}/robots.txt`));
  });
});

describe('config files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webdata-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a valid file gets team defaults', () => {
    const path = join(dir, 'ok.json');
    writeFileSync(path, JSON.stringify({ teams: [{ id: 't', apiKeys: ['k'], rateLimits: { scrape: 10 } }], service: { webhook: { retryDelaysMs: [10] } } }));
    const loaded = loadConfigFile(path);
    assert.equal(loaded.teams[0].credits, 1_000_000);
    assert.deepEqual(loaded.teams[0].features, { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] });
    assert.deepEqual(loaded.config.webhook?.retryDelaysMs, [10]);
  });

  test('one line per problem', () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify({
      teams: [
        { id: 't', apiKeys: ['k'], credits: -5, rateLimits: { scrap: 1 } },
        { id: 't', apiKeys: ['k'], faults: { errorRate: 2, failKickoffPattern: '(' } },
      ],
    }));
    const err = (() => { try { loadConfigFile(path); } catch (e) { return e; } return undefined; })();
    assert.ok(err instanceof ConfigError);
    const text = err.problems.join('\n');
    for (const fragment of ['teams[0].credits', 'teams[0].rateLimits', 'teams[1].faults.errorRate', 'teams[1].faults.failKickoffPattern', 'teams[1].id: duplicate team id', 'teams[1].apiKeys[0]: API key already used']) {
      assert.ok(text.includes(fragment), `missing "${fragment}" in:\n${text}`);
    }
    assert.equal(err.problems.length, 6);
    assert.throws(() => loadConfigFile(join(dir, 'missing.json')), /cannot read file/);
    writeFileSync(join(dir, 'syntax.json'), '{ teams: ');
    assert.throws(() => loadConfigFile(join(dir, 'syntax.json')), /not valid JSON/);
  });

  test('the bin refuses a bad config with a clear message and exit code 2', () => {
    const path = join(dir, 'bin-bad.json');
    writeFileSync(path, JSON.stringify({ teams: [{ id: 't', apiKeys: [] }] }));
    const result = spawnSync(process.execPath, ['packages/service/bin/webdata-service.js', '--port', '0'], {
      env: { ...process.env, WEBDATA_SERVICE_CONFIG: path },
      encoding: 'utf8',
      // Only catches a bin that never exits: a loaded machine takes tens of seconds to load it.
      timeout: 180_000,
    });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /invalid config .*bin-bad\.json/);
    assert.match(result.stderr, /teams\[0\]\.apiKeys: /);
  });
});
