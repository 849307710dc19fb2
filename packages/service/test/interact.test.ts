// Interact against real Chromium and the demo site's "load more" catalog: node, python and
// bash (agent-browser) code in the scrape's replayed page state, timeouts, statuses of 7.1/7.2.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../src/browser/chromium.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { browserSessions } from '../src/browser/session-manager.js';
import { findAgentBrowser } from '../src/interact/agent-browser.js';
import { scrapeRecord, startFixtureSite, startHarness, team, type Harness } from './browser-harness.js';

const chromiumPath = findChromium();
const hasPythonPlaywright = spawnSync(process.env.PYTHON ?? 'python3', ['-c', 'import playwright.sync_api']).status === 0;
/** Skipped on a developer machine without the runtime; in CI (which installs it) a missing runtime fails. */
const needs = (present: boolean, what: string) => (present || process.env.CI ? false : `${what} not installed (scripts/install-interact-deps.sh)`);
const COUNT_ITEMS = "document.querySelectorAll('#catalog-items li').length";

describe('interact', { skip: chromiumPath ? false : 'no Chromium installed', timeout: 400_000 }, () => {
  let h: Harness;
  let site: DemoSite;

  before(async () => {
    site = await startDemoSite();
    h = await startHarness([team('t1', { maxBrowserSessions: 4 }), team('t2'), team('poor', { credits: 10 }), team('one', { maxBrowserSessions: 1 })]);
  });
  after(async () => {
    await h?.close();
    await site?.close();
  });

  /** A real scrape of the catalog (POST /v2/scrape); its scrapeId is the interact job id. */
  async function scrape(options: Record<string, unknown> = {}, key?: string): Promise<string> {
    const res = await h.call('POST', '/v2/scrape', { url: `${site.url}/shop/catalog`, formats: ['markdown'], ...options }, key);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return ((res.body.data as { metadata: { scrapeId: string } }).metadata.scrapeId);
  }
  /** A stored record without a real scrape (statuses that never reach the browser). */
  function job(options: Record<string, unknown> = {}, over = {}, teamId = 't1'): string {
    const id = randomUUID();
    h.ctx.scrapes.put(scrapeRecord(id, teamId, `${site.url}/shop/catalog`, options, over));
    return id;
  }
  const interact = (id: string, body: unknown, key?: string) => h.call('POST', `/v2/scrape/${id}/interact`, body, key);

  it('runs node code with a persistent context and a page at the scrape state', async () => {
    const id = await scrape({ waitFor: 100 });
    const first = await interact(id, {
      code: `console.log('before');
const before = await page.evaluate(() => ${COUNT_ITEMS});
await page.click('#load-more');
await page.waitForFunction((n) => ${COUNT_ITEMS} > n, before);
const after = await page.evaluate(() => ${COUNT_ITEMS});
console.error('warn', after);
({ before, after, url: page.url() })`,
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.success, true, JSON.stringify(first.body));
    assert.equal(first.body.exitCode, 0);
    assert.equal(first.body.killed, false);
    assert.match(String(first.body.liveViewUrl), /^http:\/\/127\.0\.0\.1:\d+\/live\//);
    const value = JSON.parse(String(first.body.result)) as { before: number; after: number; url: string };
    assert.equal(value.before, 10);
    assert.ok(value.after > value.before, `after ${value.after}`);
    assert.ok(value.url.endsWith('/shop/catalog'));
    assert.match(String(first.body.stdout), /^before/);
    assert.match(String(first.body.stderr), /^warn \d+/);

    // Same session: the new items are still there; top-level names persist between calls.
    const second = await interact(id, { code: `const n = await page.locator('#catalog-items li').count(); n` });
    assert.equal(second.body.result, String(value.after));
    const third = await interact(id, { code: 'n * 2' });
    assert.equal(third.body.result, String(value.after * 2));

    const failing = await interact(id, { code: "throw new Error('boom')" });
    assert.equal(failing.status, 200);
    assert.equal(failing.body.success, false);
    assert.equal(failing.body.exitCode, 1);
    assert.match(String(failing.body.error), /boom/);

    const slow = await interact(id, { code: "console.log('started'); await new Promise((r) => setTimeout(r, 10_000)); 1", timeout: 1 });
    assert.equal(slow.body.killed, true);
    assert.equal(slow.body.success, false);
    assert.equal(slow.body.stdout, 'started\n', 'output before the kill is kept');
    const afterKill = await interact(id, { code: 'await page.title()' });
    assert.equal(afterKill.body.exitCode, 0, JSON.stringify(afterKill.body));

    const stop = await h.call('DELETE', `/v2/scrape/${id}/interact`);
    assert.equal(stop.status, 200);
    assert.equal(stop.body.success, true);
    assert.equal(stop.body.creditsBilled, 2);
    assert.equal((await interact(id, { code: '1' })).status, 410);
  });

  it('a stop that arrives while the session is still opening waits for it and destroys it', async () => {
    // The replay waits 15 s (the scrape's waitFor): the stop is sent as soon as the session
    // exists, so it arrives while the first interact call is still opening it.
    const manager = browserSessions(h.ctx);
    const before = manager.list('t1', 'interact', 'active').length;
    const id = job({ waitFor: 15_000 });
    const running = interact(id, { code: '1' });
    for (const deadline = Date.now() + 60_000; manager.list('t1', 'interact', 'active').length <= before; await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > deadline) throw new Error('the interact session never opened');
    }
    const stop = await h.call('DELETE', `/v2/scrape/${id}/interact`);
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    assert.equal(stop.body.success, true);
    assert.equal((await running).status, 410, 'the interact call ran on a stopped session');
    assert.equal(manager.list('t1', 'interact', 'active').length, before, 'the session was left open');
  });

  it('replays the scrape actions, then runs python code with Playwright over CDP', { skip: needs(hasPythonPlaywright, 'Playwright for Python') }, async () => {
    // The replayed click already loaded page 2 of the catalog.
    const id = await scrape({ actions: [{ type: 'click', selector: '#load-more' }, { type: 'wait', milliseconds: 500 }] });
    const res = await interact(id, {
      language: 'python',
      code: `print("items", page.locator("#catalog-items li").count())
page.locator("#catalog-items li").last.inner_text()`,
      timeout: 60,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    const count = Number(/^items (\d+)/.exec(String(res.body.stdout))?.[1]);
    assert.ok(count > 10, String(res.body.stdout));
    assert.ok(String(res.body.result).length > 0);
    const err = await interact(id, { language: 'python', code: 'raise ValueError("bad")' });
    assert.equal(err.body.exitCode, 1);
    assert.match(String(err.body.error), /ValueError: bad/);
    const slow = await interact(id, { language: 'python', code: 'import time\ntime.sleep(30)', timeout: 2 });
    assert.equal(slow.body.killed, true);
    await h.call('DELETE', `/v2/scrape/${id}/interact`);
  });

  it('runs bash with the agent-browser CLI pointed at the session', { skip: needs(findAgentBrowser() !== undefined, 'agent-browser') }, async () => {
    const id = await scrape();
    const res = await interact(id, {
      language: 'bash',
      code: `agent-browser click '#load-more'
agent-browser wait 700
agent-browser eval "${COUNT_ITEMS}"
agent-browser get url`,
      timeout: 60,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    const lines = String(res.body.stdout).trim().split('\n');
    assert.ok(lines.some((l) => /^\d+$/.test(l.trim()) && Number(l) > 10), String(res.body.stdout));
    assert.ok(lines.some((l) => l.includes('/shop/catalog')));
    await h.call('DELETE', `/v2/scrape/${id}/interact`);
  });

  it('replays mobile and location emulation of the original scrape', async () => {
    const fixture = await startFixtureSite();
    try {
      const res = await h.call('POST', '/v2/scrape', { url: `${fixture.url}/ua`, formats: ['html'], mobile: true, location: { country: 'DE', languages: ['de-DE'] } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const data = res.body.data as { html: string; metadata: { scrapeId: string } };
      assert.match(data.html, /iPhone.*\|390\|de-DE\|Europe\/Berlin/, 'the scrape ran in the browser engine');
      const id = data.metadata.scrapeId;
      const run = await interact(id, { code: "await page.evaluate(() => [navigator.userAgent.includes('iPhone'), innerWidth, navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone].join('|'))" });
      assert.equal(run.body.result, 'true|390|de-DE|Europe/Berlin', JSON.stringify(run.body));
      await h.call('DELETE', `/v2/scrape/${id}/interact`);
    } finally {
      await fixture.close();
    }
  });

  it('answers the statuses of 7.1 and 7.2', async () => {
    assert.equal((await interact(randomUUID(), { code: '1' })).status, 404);
    assert.equal((await interact('nope', { code: '1' })).status, 400);
    assert.equal((await interact(job(), { code: '1', prompt: 'x' })).status, 400);
    const other = job({}, {}, 't2');
    assert.equal((await interact(other, { code: '1' })).status, 403);
    const zdr = await scrape({ zeroDataRetention: true });
    const noReplay = await interact(zdr, { code: '1' });
    assert.equal(noReplay.status, 409, JSON.stringify(noReplay.body));
    const saved = process.env.LLM_BASE_URL;
    delete process.env.LLM_BASE_URL;
    const prompt = await interact(job(), { prompt: 'click load more' });
    process.env.LLM_BASE_URL = saved;
    if (saved === undefined) delete process.env.LLM_BASE_URL;
    assert.equal(prompt.status, 503);
    assert.match(String(prompt.body.error), /LLM_BASE_URL/);
    assert.equal((await h.call('DELETE', `/v2/scrape/${randomUUID()}/interact`)).status, 404);

    // 10 credits do not cover the 600 s ttl of an interact session at 2 credits a minute.
    const poor = job({}, {}, 'poor');
    assert.equal((await interact(poor, { code: '1' }, 'key-poor')).status, 402);
    // 503 without Chromium, 429 past the team's session limit, 502 when a runtime is missing.
    const withEnv = async <T>(name: string, value: string, fn: () => Promise<T>): Promise<T> => {
      const before = process.env[name];
      process.env[name] = value;
      try {
        return await fn();
      } finally {
        if (before === undefined) delete process.env[name];
        else process.env[name] = before;
      }
    };
    const noBrowser = await withEnv('CHROMIUM_PATH', '/nonexistent/chromium', () => interact(job(), { code: '1' }));
    assert.equal(noBrowser.status, 503, JSON.stringify(noBrowser.body));
    assert.match(String(noBrowser.body.error), /browser not configured/);
    const first = job({}, {}, 'one');
    assert.equal((await interact(first, { code: '1' }, 'key-one')).status, 200);
    assert.equal((await interact(job({}, {}, 'one'), { code: '1' }, 'key-one')).status, 429);
    const noPython = await withEnv('PYTHON', '/nonexistent/python3', () => interact(first, { language: 'python', code: '1' }, 'key-one'));
    assert.equal(noPython.status, 502, JSON.stringify(noPython.body));
    assert.equal((await h.call('DELETE', `/v2/scrape/${first}/interact`, undefined, 'key-one')).status, 200);

    const mine = job();
    assert.equal((await interact(mine, { code: '1' })).status, 200);
    assert.equal((await h.call('DELETE', `/v2/scrape/${mine}/interact`, undefined, 'key-t2')).status, 403);
    assert.equal((await h.call('DELETE', `/v2/scrape/${mine}/interact`)).status, 200);
    assert.equal((await interact(mine, { code: '1' })).status, 410);
  });
});
