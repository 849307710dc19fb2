// /v2/monitor against the local service and its demo site: checks over scrape and crawl
// targets, per-page status against the previous check after the site changes, paging of a
// check's pages, pause/run/delete, signed monitor webhooks, a scheduled check, and the
// open-source imitation answering every monitor route with its express 404.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createServiceApp, type ServiceApp } from '../src/app.js';
import { startDemoSite, type DemoSite, REVISED_PATHS } from '../src/demo-site/index.js';
import { silentLogger } from '../src/http/logger.js';
import { listen, type ListeningServer } from '../src/http/server.js';
import { createHttpScrapeEngine } from '../src/scrape/index.js';
import { verifyWebhookSignature } from 'webdata-contract/webhook-signature';
import { until } from './jobs-helpers.js';
import { call, team, type ApiAnswer } from './platform-helpers.js';

const SECRET = 'monitor-secret';

interface Delivery { type: string; raw: Buffer; signature: string | undefined; body: Record<string, unknown> }

describe('monitor on the local service', () => {
  let app: ServiceApp;
  let server: ListeningServer;
  let site: DemoSite;
  let receiver: Server;
  let hookUrl: string;
  const deliveries: Delivery[] = [];
  let api: (method: string, path: string, body?: unknown) => Promise<ApiAnswer>;

  before(async () => {
    site = await startDemoSite({ port: 0, pages: 40, seed: 3 });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        deliveries.push({ type: String(body.type), raw, signature: req.headers['x-service-signature'] as string | undefined, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    app = createServiceApp({
      teams: [team('a', { credits: 100_000, webhookSecret: SECRET }), team('b')],
      scrapeEngine: createHttpScrapeEngine({ cache: false }),
      logger: silentLogger,
    });
    server = await listen(app.listener, { port: 0 });
    api = (method, path, body) => call(server.url, method, path, { body });
  });

  after(async () => {
    await server.close();
    await app.close();
    await site.close();
    await new Promise<void>((r) => receiver.close(() => r()));
  });

  async function finished(monitorId: string, checkId: string): Promise<ApiAnswer> {
    return until('the check to finish', async () => {
      const r = await api('GET', `/v2/monitor/${monitorId}/checks/${checkId}?limit=100`);
      return r.body?.data?.finishedAt ? r : undefined;
    });
  }

  test('two checks over a site that changed in between: new, then same/changed/new/removed, with diffs and signed webhooks', async () => {
    const created = await api('POST', '/v2/monitor', {
      name: 'demo site',
      schedule: { text: 'daily' },
      targets: [
        { type: 'scrape', urls: REVISED_PATHS.map((p) => `${site.url}${p}`).concat(`${site.url}/about`) },
        { type: 'crawl', url: `${site.url}/blog`, crawlOptions: { limit: 200 } },
      ],
      webhook: { url: hookUrl, metadata: { series: 'demo' }, events: ['monitor.check.completed', 'monitor.page'] },
    });
    assert.equal(created.status, 200, created.text);
    const monitor = created.body.data;
    assert.equal(monitor.schedule.cron, '0 0 * * *');
    assert.equal(monitor.schedule.timezone, 'UTC');
    assert.equal(monitor.retentionDays, 30);
    assert.equal(monitor.targets.length, 2);
    assert.ok(monitor.nextRunAt, 'an active monitor has a next run');

    const first = await api('POST', `/v2/monitor/${monitor.id}/run`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.id, first.body.data.id);
    const one = (await finished(monitor.id, first.body.id)).body.data;
    // /blog links /blog/missing-post, which answers 404: an error page, so the check is partial.
    assert.equal(one.status, 'partial', JSON.stringify(one.summary));
    assert.equal(one.summary.error, 1);
    assert.equal(one.pages.find((p: { status: string }) => p.status === 'error').url, `${site.url}/blog/missing-post`);
    assert.ok(one.summary.totalPages > 4);
    assert.equal(one.summary.new, one.summary.totalPages - 1, 'every good page is new on the first check');
    assert.equal(one.actualCredits, one.summary.new, 'error pages bill 0');

    site.setRevision(1);
    const second = await api('POST', `/v2/monitor/${monitor.id}/run`);
    const two = (await finished(monitor.id, second.body.id)).body.data;
    assert.equal(two.status, 'partial');
    const byUrl = new Map<string, { status: string; diff: { text?: string } | null }>(two.pages.map((p: { url: string }) => [p.url.replace(site.url, ''), p]));
    for (const path of REVISED_PATHS) {
      assert.equal(byUrl.get(path)?.status, 'changed', path);
      assert.match(byUrl.get(path)?.diff?.text ?? '', /^@@/m, `${path} has a unified diff`);
    }
    assert.equal(byUrl.get('/about')?.status, 'same');
    assert.equal(byUrl.get('/blog/new-1-1')?.status, 'new');
    assert.equal(byUrl.get('/blog/missing-post')?.status, 'error');
    // Revision 1 drops the orphan /blog/post-7 (reached by the sitemap): the crawl no longer finds it.
    assert.equal(byUrl.get('/blog/post-7')?.status, 'removed');
    assert.equal(two.summary.removed, 1);
    assert.ok(two.summary.same > 0);
    assert.equal(two.pages.every((p: Record<string, unknown>) => !('judgment' in p)), true, 'no model: no judgment field');

    // Paging of a check's pages by next.
    const paged: string[] = [];
    let page = await api('GET', `/v2/monitor/${monitor.id}/checks/${second.body.id}?limit=3`);
    for (;;) {
      paged.push(...page.body.data.pages.map((p: { id: string }) => p.id));
      if (!page.body.next) break;
      page = await call('', 'GET', page.body.next, {});
    }
    assert.equal(paged.length, two.summary.totalPages);
    assert.equal(new Set(paged).size, paged.length);
    const changedOnly = await api('GET', `/v2/monitor/${monitor.id}/checks/${second.body.id}?status=changed&limit=100`);
    assert.equal(changedOnly.body.data.pages.length, two.summary.changed);

    const checks = await api('GET', `/v2/monitor/${monitor.id}/checks`);
    assert.deepEqual(checks.body.data.map((c: { id: string }) => c.id), [second.body.id, first.body.id]);

    const completed = await until('two check.completed deliveries', async () => {
      const d = deliveries.filter((x) => x.type === 'monitor.check.completed');
      return d.length >= 2 ? d : undefined;
    });
    for (const d of completed) {
      assert.ok(verifyWebhookSignature(d.raw, d.signature, SECRET), 'signed like the other webhooks');
      assert.deepEqual((d.body.metadata as Record<string, string>).series, 'demo');
    }
    const last = completed.find((d) => d.body.id === second.body.id)!;
    assert.deepEqual((last.body.data as Array<Record<string, unknown>>)[0], { monitorId: monitor.id, checkId: second.body.id, status: 'partial', summary: two.summary });
    const pageEvents = await until('monitor.page deliveries of both checks', async () => {
      const d = deliveries.filter((x) => x.type === 'monitor.page');
      return d.length >= one.summary.totalPages + two.summary.totalPages ? d : undefined;
    });
    assert.ok(pageEvents.every((d) => d.body.id === first.body.id || d.body.id === second.body.id));

    const meta = await api('GET', `/v2/monitor/${monitor.id}`);
    assert.deepEqual(meta.body.data.lastCheckSummary, two.summary);
    site.setRevision(0);
  });

  test('paused monitors refuse a run; a running check refuses another; delete answers 404 afterwards; other teams see nothing', async (t) => {
    // The check's page answers only when the test says, so the check is surely still running
    // when the second run is asked for.
    let release = () => {};
    const answered = new Promise<void>((resolve) => { release = resolve; });
    const held = createServer((_req, res) => void answered.then(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><h1>Held</h1></body></html>')));
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
    const heldUrl = `http://127.0.0.1:${(held.address() as AddressInfo).port}/held`;
    t.after(() => new Promise<void>((r) => held.close(() => r())));
    const created = await api('POST', '/v2/monitor', { name: 'p', schedule: { cron: '*/5 * * * *' }, targets: [{ type: 'scrape', urls: [heldUrl] }] });
    const id = created.body.data.id;
    const paused = await api('PATCH', `/v2/monitor/${id}`, { status: 'paused' });
    assert.equal(paused.body.data.status, 'paused');
    assert.equal(paused.body.data.nextRunAt, null);
    const refused = await api('POST', `/v2/monitor/${id}/run`);
    assert.equal(refused.status, 409);
    await api('PATCH', `/v2/monitor/${id}`, { status: 'active' });
    const run = await api('POST', `/v2/monitor/${id}/run`);
    assert.equal(run.status, 200);
    const again = await api('POST', `/v2/monitor/${id}/run`);
    assert.equal(again.status, 409, 'the first check is still queued or running');
    assert.equal(again.body.checkId, run.body.id);
    release();
    await finished(id, run.body.id);
    const other = await call(server.url, 'GET', `/v2/monitor/${id}`, { key: 'key-b' });
    assert.equal(other.status, 404);
    const listB = await call(server.url, 'GET', '/v2/monitor', { key: 'key-b' });
    assert.deepEqual(listB.body.data, []);
    assert.equal((await api('DELETE', `/v2/monitor/${id}`)).status, 200);
    assert.equal((await api('GET', `/v2/monitor/${id}`)).status, 404);
    assert.equal((await api('GET', `/v2/monitor/${id}/checks`)).status, 404);
  });

  test('bad input is refused with one line naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', schedule: {}, targets: [{ type: 'scrape', urls: [`${site.url}/`] }] }, /schedule\.cron: cron or text is required/],
      [{ name: 'x', schedule: { cron: 'nope' }, targets: [{ type: 'scrape', urls: [`${site.url}/`] }] }, /schedule\.cron/],
      [{ name: 'x', schedule: { cron: '* * * * *', timezone: 'Mars/Base' }, targets: [{ type: 'scrape', urls: [`${site.url}/`] }] }, /schedule\.timezone/],
      [{ name: 'x', schedule: { text: 'now and then' }, targets: [{ type: 'scrape', urls: [`${site.url}/`] }] }, /schedule\.text/],
      [{ name: 'x', schedule: { text: 'daily' }, targets: [] }, /targets/],
      [{ name: 'x', schedule: { text: 'daily' }, targets: [{ type: 'scrape', urls: [`${site.url}/`] }], retentionDays: 400 }, /retentionDays/],
    ];
    for (const [body, rule] of cases) {
      const r = await api('POST', '/v2/monitor', body);
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.error, rule);
    }
  });

  test('a schedule firing every second starts scheduled checks by itself', async () => {
    const created = await api('POST', '/v2/monitor', { name: 's', schedule: { cron: '* * * * * *' }, targets: [{ type: 'scrape', urls: [`${site.url}/about`] }] });
    const id = created.body.data.id;
    const check = await until('a scheduled check', async () => {
      const r = await api('GET', `/v2/monitor/${id}/checks`);
      return r.body.data.find((c: { trigger: string }) => c.trigger === 'scheduled');
    });
    assert.ok(check.scheduledFor);
    await api('DELETE', `/v2/monitor/${id}`);
  });
});

describe('monitor on the open-source imitation', () => {
  let app: ServiceApp;
  let server: ListeningServer;
  before(async () => {
    app = createServiceApp({ teams: [team('a')], config: { imitate: 'firecrawl-oss' }, logger: silentLogger });
    server = await listen(app.listener, { port: 0 });
  });
  after(async () => {
    await server.close();
    await app.close();
  });

  const id = '0190b0a0-0000-7000-8000-000000000001';
  for (const [method, path] of [
    ['POST', '/v2/monitor'], ['GET', '/v2/monitor'], ['GET', `/v2/monitor/${id}`], ['PATCH', `/v2/monitor/${id}`],
    ['DELETE', `/v2/monitor/${id}`], ['POST', `/v2/monitor/${id}/run`], ['GET', `/v2/monitor/${id}/checks`], ['GET', `/v2/monitor/${id}/checks/${id}`],
  ] as const) {
    test(`${method} ${path.replace(id, '{id}').replace(id, '{id}')} answers the express 404 page`, async () => {
      const r = await call(server.url, method, path, method === 'POST' || method === 'PATCH' ? { body: {} } : {});
      assert.equal(r.status, 404);
      assert.match(r.text, new RegExp(`<pre>Cannot ${method} /v2/monitor`));
    });
  }
});
