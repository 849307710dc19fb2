// POST /v2/batch/scrape with appendToId: the URLs join the team's existing batch job (running
// or completed, which is reopened), once per idempotency key; unknown or foreign ids are 404.
// The open-source imitation appends as that server does: no key, 500 for an unknown id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createServiceApp, type ServiceApp } from '../src/app.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { silentLogger } from '../src/http/logger.js';
import { listen, type ListeningServer } from '../src/http/server.js';
import { createHttpScrapeEngine } from '../src/scrape/index.js';
import { call, team, type ApiAnswer } from './platform-helpers.js';

const DEADLINE_MS = 60_000;
let site: DemoSite;
let app: ServiceApp;
let server: ListeningServer;
let oss: ServiceApp;
let ossServer: ListeningServer;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('batch append', () => {
  before(async () => {
    site = await startDemoSite({ port: 0, pages: 20 });
    app = createServiceApp({ teams: [team('a', { credits: 10_000 }), team('b')], scrapeEngine: createHttpScrapeEngine({ cache: false }), logger: silentLogger });
    server = await listen(app.listener, { port: 0 });
    oss = createServiceApp({ teams: [team('a')], config: { imitate: 'firecrawl-oss' }, scrapeEngine: createHttpScrapeEngine({ cache: false }), logger: silentLogger });
    ossServer = await listen(oss.listener, { port: 0 });
  });
  after(async () => {
    await server.close();
    await app.close();
    await ossServer.close();
    await oss.close();
    await site.close();
  });

  async function completed(id: string): Promise<ApiAnswer> {
    const end = Date.now() + DEADLINE_MS;
    for (;;) {
      const r = await call(server.url, 'GET', `/v2/batch/scrape/${id}`);
      if (r.body.status === 'completed') return r;
      if (Date.now() > end) throw new Error(`batch ${id} still ${r.body.status}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  test('appendToId extends a completed batch: same id, every URL once, one append per key', async () => {
    const start = await call(server.url, 'POST', '/v2/batch/scrape', { body: { urls: [`${site.url}/about`, `${site.url}/docs`] } });
    assert.equal(start.status, 200, start.text);
    const id = start.body.id as string;
    assert.equal((await completed(id)).body.data.length, 2);

    const key = randomUUID();
    const more = { urls: [`${site.url}/blog`, `${site.url}/shop`], appendToId: id };
    const appended = await call(server.url, 'POST', '/v2/batch/scrape', { body: more, headers: { 'x-idempotency-key': key } });
    assert.equal(appended.status, 200, appended.text);
    assert.equal(appended.body.id, id);
    const retried = await call(server.url, 'POST', '/v2/batch/scrape', { body: more, headers: { 'x-idempotency-key': key } });
    assert.equal(retried.status, 409, 'a retried append with the same key adds nothing');
    assert.equal(retried.body.id, id);

    const done = await completed(id);
    assert.equal(done.body.total, 4);
    assert.deepEqual(done.body.data.map((d: { metadata: { sourceURL: string } }) => d.metadata.sourceURL.replace(site.url, '')).sort(), ['/about', '/blog', '/docs', '/shop']);
  });

  test('appendToId to an unknown or another team\'s job is 404', async () => {
    const unknown = await call(server.url, 'POST', '/v2/batch/scrape', { body: { urls: [`${site.url}/about`], appendToId: randomUUID() } });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /appendToId/);
    const start = await call(server.url, 'POST', '/v2/batch/scrape', { body: { urls: [`${site.url}/about`] } });
    const foreign = await call(server.url, 'POST', '/v2/batch/scrape', { key: 'key-b', body: { urls: [`${site.url}/about`], appendToId: start.body.id } });
    assert.equal(foreign.status, 404);
  });

  // The open-source server at 0fac8fb has appendToId (apps/api/src/controllers/v2/batch-scrape.ts):
  // the URLs join the job, but its batch route ignores the idempotency key.
  test('the open-source imitation appends too, without idempotency; an unknown id fails with 500', async () => {
    const start = await call(ossServer.url, 'POST', '/v2/batch/scrape', { body: { urls: [`${site.url}/about`] } });
    assert.equal(start.status, 200, start.text);
    const id = start.body.id as string;
    const key = randomUUID();
    const more = { urls: [`${site.url}/blog`], appendToId: id };
    const first = await call(ossServer.url, 'POST', '/v2/batch/scrape', { body: more, headers: { 'x-idempotency-key': key } });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.id, id);
    const again = await call(ossServer.url, 'POST', '/v2/batch/scrape', { body: more, headers: { 'x-idempotency-key': key } });
    assert.equal(again.status, 200, 'the key is ignored there: the URL is added a second time');
    const end = Date.now() + DEADLINE_MS;
    for (;;) {
      const r = await call(ossServer.url, 'GET', `/v2/batch/scrape/${id}`);
      if (r.body.status === 'completed') {
        assert.equal(r.body.total, 3);
        break;
      }
      if (Date.now() > end) throw new Error(`batch ${id} still ${r.body.status}`);
      await new Promise((res) => setTimeout(res, 50));
    }
    const unknown = await call(ossServer.url, 'POST', '/v2/batch/scrape', { body: { urls: [`${site.url}/about`], appendToId: randomUUID() } });
    assert.equal(unknown.status, 500);
  });
});
