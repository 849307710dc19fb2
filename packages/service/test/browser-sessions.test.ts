// Browser sessions against real Chromium: CDP access through the proxy, live views,
// lifetimes, profiles, limits and billing (reference 2.1, 2.2, 3.1, 4.9-4.11, 8).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser } from 'playwright-core';
import { WebSocket } from 'ws';
import { CHROMIUM_ARGS, findChromium } from '../src/browser/chromium.js';
import { startFixtureSite, startHarness, team, type Harness } from './browser-harness.js';

const chromiumPath = findChromium();

// Runs in the viewer page (a string, so no build helpers leak in): compares the live
// frame with the session's own PNG screenshot, pixel by sampled pixel.
const COMPARE_SCRIPT = `(async () => {
  const live = document.getElementById('screen');
  const ref = new Image();
  ref.src = 'data:image/png;base64,PNG';
  await ref.decode();
  function pixels(img) {
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    return g.getImageData(0, 0, c.width, c.height).data;
  }
  const a = pixels(live), b = pixels(ref);
  let equal = 0, total = 0;
  for (let y = 5; y < ref.naturalHeight; y += 17) for (let x = 5; x < ref.naturalWidth; x += 23) {
    const i = (y * ref.naturalWidth + x) * 4;
    total++;
    if ([0, 1, 2].every((k) => Math.abs(a[i + k] - b[i + k]) <= 24)) equal++;
  }
  return { live: [live.naturalWidth, live.naturalHeight], ref: [ref.naturalWidth, ref.naturalHeight], ratio: equal / total };
})()`;

describe('browser sessions', { skip: chromiumPath ? false : 'no Chromium installed', timeout: 400_000 }, () => {
  let h: Harness;
  let site: { url: string; close(): Promise<void> };
  let viewer: Browser;

  before(async () => {
    site = await startFixtureSite();
    h = await startHarness([team('t1'), team('t2'), team('poor', { credits: 10 })]);
    viewer = await chromium.launch({ executablePath: chromiumPath, args: [...CHROMIUM_ARGS] });
  });
  after(async () => {
    await viewer?.close();
    await h?.close();
    await site?.close();
  });

  async function create(body: unknown = {}, key?: string) {
    const res = await h.call('POST', '/v2/browser', body, key);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { id: string; cdpUrl: string; liveViewUrl: string; interactiveLiveViewUrl: string; expiresAt: string };
  }

  it('creates a session a CDP client drives through cdpUrl, lists it, and bills it once on DELETE', async () => {
    const s = await create({ ttl: 120 });
    assert.match(s.cdpUrl, /^ws:\/\/127\.0\.0\.1:\d+\/cdp\//);
    assert.ok(Date.parse(s.expiresAt) - Date.now() > 100_000);
    const client = await chromium.connectOverCDP(s.cdpUrl);
    const page = client.contexts()[0].pages()[0] ?? (await client.contexts()[0].newPage());
    await page.goto(`${site.url}/`);
    assert.equal(await page.textContent('h1'), 'Fixture home');

    // A plain CDP client (raw WebSocket, JSON messages) works too.
    const raw = new WebSocket(s.cdpUrl);
    await new Promise((resolve, reject) => { raw.once('open', resolve); raw.once('error', reject); });
    const reply = new Promise<{ id: number; result: { product: string } }>((resolve) => raw.once('message', (d) => resolve(JSON.parse(d.toString()) as never)));
    raw.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
    const version1 = await reply;
    assert.equal(version1.id, 1);
    assert.match(version1.result.product, /Chrom/);
    raw.close();

    // The discovery endpoint answers too, rewritten to go through the proxy.
    const version = (await (await fetch(s.cdpUrl.replace('ws://', 'http://') + '/json/version')).json()) as { webSocketDebuggerUrl: string };
    assert.ok(version.webSocketDebuggerUrl.startsWith(s.cdpUrl + '/devtools/browser/'));

    const listed = await h.call('GET', '/v2/browser?status=active');
    const sessions = listed.body.sessions as Array<Record<string, unknown>>;
    const mine = sessions.find((x) => x.id === s.id);
    assert.ok(mine);
    assert.equal(mine.status, 'active');
    assert.equal(mine.expiresAt, undefined);
    assert.equal(mine.cdpUrl, s.cdpUrl);

    assert.equal((await h.call('DELETE', `/v2/browser/${s.id}`, undefined, 'key-t2')).status, 403);
    const before = h.ledger.remaining('t1');
    const del = await h.call('DELETE', `/v2/browser/${s.id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal(del.body.success, true);
    assert.equal(typeof del.body.sessionDurationMs, 'number');
    assert.equal(del.body.creditsBilled, 2); // at least one minute's worth at 2/min
    assert.equal(before - h.ledger.remaining('t1'), 2);
    const again = await h.call('DELETE', '/v2/browser', { id: s.id });
    assert.equal(again.status, 200);
    assert.equal(before - h.ledger.remaining('t1'), 2, 'charged once');
    await client.close().catch(() => undefined);

    const destroyed = await h.call('GET', '/v2/browser?status=destroyed');
    assert.ok((destroyed.body.sessions as Array<{ id: string }>).some((x) => x.id === s.id));
    await assert.rejects(chromium.connectOverCDP(s.cdpUrl, { timeout: 5_000 }));
    assert.equal((await h.call('DELETE', '/v2/browser/not-a-uuid')).status, 400);
    assert.equal((await h.call('DELETE', '/v2/browser/8d6e5c3a-1111-4222-8333-444455556666')).status, 404);
  });

  it('streams the screen to the live view and forwards clicks from the interactive view', async () => {
    const s = await create({ ttl: 120 });
    const client = await chromium.connectOverCDP(s.cdpUrl);
    const page = client.contexts()[0].pages()[0];
    await page.goto(`${site.url}/blocks`);
    const shot = (await page.screenshot({ type: 'png' })).toString('base64');

    const view = await viewer.newPage({ viewport: { width: 1400, height: 900 } });
    await view.goto(s.liveViewUrl);
    await view.waitForFunction(() => Number(document.body.dataset.frames ?? 0) > 0 && (document.getElementById('screen') as HTMLImageElement).complete, undefined, { timeout: 60_000 });
    const compare = (await view.evaluate(COMPARE_SCRIPT.replace('PNG', shot))) as { live: number[]; ref: number[]; ratio: number };
    assert.deepEqual(compare.live, compare.ref);
    assert.ok(compare.ratio > 0.95, `only ${compare.ratio} of sampled pixels match`);

    // The read-only view ignores input; the interactive one reaches the page.
    await page.goto(`${site.url}/clicks`);
    await view.mouse.click(200, 200);
    await view.goto(s.interactiveLiveViewUrl);
    await view.waitForFunction(() => Number(document.body.dataset.frames ?? 0) > 0, undefined, { timeout: 60_000 });
    const box = (await view.locator('#screen').boundingBox())!;
    await view.mouse.click(box.x + box.width / 2, box.y + box.height / 4);
    await page.waitForFunction(() => (window as unknown as { clicks: number[][] }).clicks.length > 0, undefined, { timeout: 60_000 });
    const clicks = await page.evaluate(() => (window as unknown as { clicks: number[][] }).clicks);
    assert.equal(clicks.length, 1);
    const size = page.viewportSize() ?? (await page.evaluate(() => ({ width: innerWidth, height: innerHeight })));
    assert.ok(Math.abs(clicks[0][0] - size.width / 2) < 20, `x ${clicks[0][0]}`);
    assert.ok(Math.abs(clicks[0][1] - size.height / 4) < 20, `y ${clicks[0][1]}`);
    await view.keyboard.press('k');
    await page.waitForFunction(() => document.body.dataset.keys === 'k', undefined, { timeout: 60_000 });
    await view.close();
    await client.close().catch(() => undefined);
    await h.call('DELETE', `/v2/browser/${s.id}`);
  });

  it('destroys sessions when ttl or activityTtl runs out; CDP traffic counts as activity', async () => {
    // Lifetimes are long against the real time a loaded machine adds to the moved clock (20 s of
    // slack); each sleep outlasts the 500 ms sweep interval, so a sweep runs before it ends.
    const a = await create({ ttl: 120, activityTtl: 3600 });
    const b = await create({ ttl: 3600, activityTtl: 60 });
    const client = await chromium.connectOverCDP(b.cdpUrl);
    const page = client.contexts()[0].pages()[0];
    h.advance(40_000);
    await page.evaluate(() => 1 + 1); // activity through the proxy
    h.advance(40_000);
    await sleep(1_200);
    const status = async (id: string) => {
      const all = (await h.call('GET', '/v2/browser')).body.sessions as Array<{ id: string; status: string }>;
      return all.find((x) => x.id === id)?.status;
    };
    assert.equal(await status(b.id), 'active', 'recent CDP traffic keeps it alive');
    // Disconnected first: no late CDP event can count as activity after the clock moves.
    await client.close().catch(() => undefined);
    h.advance(65_000);
    await sleep(1_500);
    assert.equal(await status(a.id), 'destroyed', 'ttl 120 s elapsed');
    assert.equal(await status(b.id), 'destroyed', 'idle for more than activityTtl');
  });

  it('keeps profile cookies and localStorage across sessions, with one saver at a time', async () => {
    const saver = await create({ profile: { name: 'shop' } });
    const second = await h.call('POST', '/v2/browser', { profile: { name: 'shop', saveChanges: true } });
    assert.equal(second.status, 409);
    const reader = await create({ profile: { name: 'shop', saveChanges: false } });
    await h.call('DELETE', `/v2/browser/${reader.id}`);

    const c1 = await chromium.connectOverCDP(saver.cdpUrl);
    await c1.contexts()[0].pages()[0].goto(`${site.url}/set-cookie`);
    await c1.close().catch(() => undefined);
    assert.equal((await h.call('DELETE', `/v2/browser/${saver.id}`)).status, 200);

    const next = await create({ profile: { name: 'shop', saveChanges: false } });
    const c2 = await chromium.connectOverCDP(next.cdpUrl);
    const page = c2.contexts()[0].pages()[0];
    await page.goto(`${site.url}/show-cookie`);
    const text = await page.textContent('#c');
    assert.match(text ?? '', /session=abc123/);
    assert.match(text ?? '', /\|blue$/);
    await c2.close().catch(() => undefined);
    await h.call('DELETE', `/v2/browser/${next.id}`);
    // Another team's profile of the same name is separate.
    const other = await create({ profile: { name: 'shop', saveChanges: true } }, 'key-t2');
    await h.call('DELETE', `/v2/browser/${other.id}`, undefined, 'key-t2');
  });

  it('answers 429 past the team limit, 402 without credits for the ttl, 400 on bad bodies', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({}, 'key-t2')).id);
    const over = await h.call('POST', '/v2/browser', {}, 'key-t2');
    assert.equal(over.status, 429);
    for (const id of ids) await h.call('DELETE', `/v2/browser/${id}`, undefined, 'key-t2');
    assert.equal((await h.call('POST', '/v2/browser', { ttl: 600 }, 'key-poor')).status, 402);
    assert.equal((await h.call('POST', '/v2/browser', { ttl: 10 })).status, 400);
    assert.equal((await h.call('POST', '/v2/browser', { nope: 1 })).status, 400);
  });
});
