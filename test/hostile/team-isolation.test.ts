// Team isolation on the local service: with team B's key, every GET, DELETE and POST on team
// A's crawl, batch, scrape, interact and browser ids is refused (403, or 404 where the
// reference allows it; 403 where it says so), leaks none of A's data, changes nothing of A's
// (a running crawl is not cancelled, sessions stay open), and B's lists never show A's ids.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';
import { silentLogger } from '../../packages/service/src/http/logger.js';
import type { TeamConfig } from '../../packages/service/src/core/teams.js';

const team = (id: string, key: string): TeamConfig => ({
  id, apiKeys: [key], credits: 100_000, rateLimits: {}, concurrency: 4, maxBrowserSessions: 3,
  features: { ignoreRobotsTxt: true, zeroDataRetention: true, searchEnterprise: ['anon', 'zdr'] },
});
const A = 'team-a-key-7c1f';
const B = 'team-b-key-93d2';

let service: LocalService;
let agent: Agent;
const ids = { crawl: '', runningCrawl: '', batch: '', scrape: '', browser: '' };
let site = '';

interface Answer { status: number; text: string; body: Record<string, unknown> | undefined }

async function call(key: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Answer> {
  const res = await request(`${service.url}${path}`, {
    method,
    dispatcher: agent,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  const text = await res.body.text();
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, text, body: parsed };
}

async function ok(key: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await call(key, method, path, body);
  assert.equal(answer.status, 200, `${method} ${path}: ${answer.text.slice(0, 300)}`);
  return answer.body ?? {};
}

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('team-isolation', () => {
  before(async () => {
    service = await startLocalService({ teams: [team('team-a', A), team('team-b', B)], site: { pages: 30, searchIndex: false }, logger: silentLogger });
    agent = new Agent({ connections: 4 });
    site = service.siteUrl as string;
    ids.crawl = String((await ok(A, 'POST', '/v2/crawl', { url: `${site}/docs`, limit: 3 })).id);
    // An hour between pages: still running while team B tries to cancel it, however slow the
    // machine (team A cancels it in after()).
    ids.runningCrawl = String((await ok(A, 'POST', '/v2/crawl', { url: `${site}/blog`, limit: 30, delay: 3600 })).id);
    ids.batch = String((await ok(A, 'POST', '/v2/batch/scrape', { urls: [`${site}/about`, `${site}/shop`] })).id);
    const scrape = await ok(A, 'POST', '/v2/scrape', { url: `${site}/shop/catalog` });
    ids.scrape = String((scrape.data as { metadata: { scrapeId: string } }).metadata.scrapeId);
    // A's interact session (opened by A's first interact call) and a standalone browser session.
    await ok(A, 'POST', `/v2/scrape/${ids.scrape}/interact`, { code: '1 + 1' });
    ids.browser = String((await ok(A, 'POST', '/v2/browser', { ttl: 120 })).id);
    // Until both finished (so they have documents B could leak); the deadline only catches a hang.
    for (const deadline = Date.now() + 300_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const s = await ok(A, 'GET', `/v2/crawl/${ids.crawl}`);
      const b = await ok(A, 'GET', `/v2/batch/scrape/${ids.batch}`);
      if (s.status !== 'scraping' && b.status !== 'scraping') break;
      if (Date.now() > deadline) throw new Error(`crawl ${String(s.status)} / batch ${String(b.status)} after 300 s`);
    }
  });

  after(async () => {
    // A cleans up its own things (this also proves they were still there).
    await call(A, 'DELETE', `/v2/crawl/${ids.runningCrawl}`).catch(() => undefined);
    await call(A, 'DELETE', `/v2/scrape/${ids.scrape}/interact`).catch(() => undefined);
    await call(A, 'DELETE', `/v2/browser/${ids.browser}`).catch(() => undefined);
    await agent?.close();
    await service?.close();
  });

  /** What B must never see in an answer: A's ids (even the one B asked about), and A's site content. */
  function assertNoLeak(answer: Answer, what: string): void {
    for (const id of Object.values(ids)) assert.ok(!answer.text.toLowerCase().includes(id), `${what}: leaks ${id}`);
    assert.ok(!answer.text.includes(site), `${what}: leaks team A's URLs: ${answer.text.slice(0, 300)}`);
    assert.ok(!/"data"\s*:\s*\[\s*\{/.test(answer.text), `${what}: leaks documents`);
  }

  test("team B's key on team A's ids: refused every time, for GET, DELETE and POST", async () => {
    // [method, path, body?, statuses allowed]: 403 where the reference says so (interact), else 403 or 404.
    const attempts = (id: (name: keyof typeof ids) => string): Array<[('GET' | 'POST' | 'DELETE'), string, unknown, number[]]> => [
      ['GET', `/v2/crawl/${id('crawl')}`, undefined, [403, 404]],
      ['GET', `/v2/crawl/${id('crawl')}?skip=0&limit=10`, undefined, [403, 404]],
      ['GET', `/v2/crawl/${id('crawl')}/errors`, undefined, [403, 404]],
      ['GET', `/v2/crawl/${id('runningCrawl')}`, undefined, [403, 404]],
      ['DELETE', `/v2/crawl/${id('runningCrawl')}`, undefined, [403, 404]],
      ['DELETE', `/v2/crawl/${id('crawl')}`, undefined, [403, 404]],
      ['GET', `/v2/batch/scrape/${id('batch')}`, undefined, [403, 404]],
      ['GET', `/v2/batch/scrape/${id('batch')}/errors`, undefined, [403, 404]],
      ['DELETE', `/v2/batch/scrape/${id('batch')}`, undefined, [403, 404]],
      ['GET', `/v2/scrape/${id('scrape')}`, undefined, [403, 404]],
      ['POST', `/v2/scrape/${id('scrape')}/interact`, { code: 'document.title' }, [403]],
      ['POST', `/v2/scrape/${id('scrape')}/interact`, { code: 'process.exit(1)', language: 'node' }, [403]],
      ['DELETE', `/v2/scrape/${id('scrape')}/interact`, undefined, [403]],
      ['DELETE', `/v2/browser/${id('browser')}`, undefined, [403, 404]],
      ['DELETE', '/v2/browser', { id: id('browser') }, [403, 404]],
      ['POST', `/v2/browser/${id('browser')}/execute`, { code: '1', language: 'node' }, [403, 404]],
    ];
    const variants: Array<[string, (s: string) => string]> = [['as given', (s) => s], ['upper case', (s) => s.toUpperCase()]];
    for (let round = 0; round < 3; round++) {
      for (const [variant, form] of variants) {
        for (const [method, path, body, allowed] of attempts((name) => form(ids[name]))) {
          const answer = await call(B, method, path, body);
          const what = `${method} ${path} (${variant}, round ${round + 1})`;
          // Another spelling of the id is not the same job to the service: 400 or 404 are fine too.
          const accepted = variant === 'as given' ? allowed : [400, 403, 404];
          assert.ok(accepted.includes(answer.status), `${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
          assert.equal(answer.body?.success, false, `${what}: ${answer.text.slice(0, 200)}`);
          assertNoLeak(answer, what);
        }
      }
    }
  });

  test("team B's lists and support never show team A's jobs", async () => {
    const lists = [
      await call(B, 'GET', '/v2/crawl/active'),
      await call(B, 'GET', '/v2/browser'),
      await call(B, 'GET', '/v2/browser?status=active'),
      await call(B, 'GET', '/v2/team/activity?limit=100'),
      await call(B, 'GET', '/v2/team/credit-usage'),
      await call(B, 'GET', '/v2/team/credit-usage/historical?byApiKey=true'),
    ];
    for (const answer of lists) {
      assert.equal(answer.status, 200, answer.text);
      assertNoLeak(answer, 'list');
      assert.ok(!answer.text.includes(A), 'team A key listed');
    }
    const history = lists[5].body?.periods as Array<{ totalCredits: number }>;
    assert.ok(history.every((p) => p.totalCredits === 0), 'team B was charged for team A');
    const support = await call(B, 'POST', '/v2/support/ask', { question: 'Why did my crawl stop early?', jobId: ids.crawl });
    assert.ok(support.status === 200 || (support.status >= 400 && support.status < 500), support.text.slice(0, 300));
    assert.ok(!support.text.includes(site), `support ask answered with team A's job: ${support.text.slice(0, 500)}`);
  });

  test("nothing of team A's changed: the running crawl, the interact and browser sessions", async () => {
    const crawl = await ok(A, 'GET', `/v2/crawl/${ids.runningCrawl}`);
    assert.equal(crawl.status, 'scraping', 'team B cancelled team A\'s crawl');
    const batch = await ok(A, 'GET', `/v2/batch/scrape/${ids.batch}`);
    assert.notEqual(batch.status, 'cancelled');
    const sessions = await ok(A, 'GET', '/v2/browser?status=active');
    assert.ok((sessions.sessions as Array<{ id: string }>).some((s) => s.id === ids.browser), 'team A\'s browser session was destroyed');
    const again = await ok(A, 'POST', `/v2/scrape/${ids.scrape}/interact`, { code: '2 + 2' });
    assert.equal(again.success, true, 'team A\'s interact session was destroyed');
    const activity = await ok(A, 'GET', '/v2/team/activity?limit=100');
    const listed = (activity.data as Array<{ id: string }>).map((e) => e.id);
    for (const id of [ids.crawl, ids.runningCrawl, ids.batch, ids.scrape]) assert.ok(listed.includes(id), `team A's activity lost ${id}`);
  });
});
