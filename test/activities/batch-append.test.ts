// appendBatchScrape against the local service (real HTTP, real jobs) and against fakes of
// servers without append: one addition grows the same job once, also when retried with its key
// or after a lost answer (the job's total tells), and a server without append is a typed
// not-available (with the job it started instead, if it did).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/client.js';
import { createServiceApp, type ServiceApp } from '../../packages/service/src/app.js';
import { startDemoSite, type DemoSite } from '../../packages/service/src/demo-site/index.js';
import { silentLogger } from '../../packages/service/src/http/logger.js';
import { listen, type ListeningServer } from '../../packages/service/src/http/server.js';
import { createHttpScrapeEngine } from '../../packages/service/src/scrape/index.js';
import { team } from '../../packages/service/test/platform-helpers.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { createActivities } from '../../src/activities/index.js';
import { FakeServer, type FakeResponse } from '../api/fake-server.js';

const API_KEY = 'wd-test-secret-key-0123456789';
const DEADLINE_MS = 120_000;
const quiet = new DefaultLogger('ERROR');
let site: DemoSite;
let dir: string;
let store: FilesystemStore;
const services: Array<{ app: ServiceApp; server: ListeningServer; client: WebDataClient }> = [];

async function service(config: Record<string, unknown> = {}) {
  const app = createServiceApp({ teams: [team('t', { apiKeys: [API_KEY], credits: 10_000 })], config: config as never, scrapeEngine: createHttpScrapeEngine({ cache: false }), logger: silentLogger });
  const server = await listen(app.listener, { port: 0 });
  // The batches name the demo site on 127.0.0.1: allowed by its host:port.
  const client = new WebDataClient({ apiKey: API_KEY, baseUrl: server.url, allowPrivateAddresses: [new URL(site.url).host] });
  services.push({ app, server, client });
  return client;
}

before(async () => {
  site = await startDemoSite({ port: 0, pages: 20 });
  dir = mkdtempSync(join(tmpdir(), 'wd-append-'));
  store = new FilesystemStore({ root: dir });
  await store.appendLinks('run-1', 'missing', ['/about', '/docs', '/blog', '/shop'].map((p) => ({ url: `${site.url}${p}` })));
});
after(async () => {
  for (const s of services) {
    await s.client.close();
    await s.server.close();
    await s.app.close();
  }
  await store.close();
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(attempt = 1) {
  return new MockActivityEnvironment({ workflowExecution: { workflowId: 'wf-append', runId: 'r1' }, scheduledTimestampMs: Date.now() - 1000, attempt } as never, { logger: quiet });
}

function call<I, R>(e: MockActivityEnvironment, fn: (input: I) => Promise<R>, input: I): Promise<R> {
  return e.run(fn as (input: unknown) => Promise<R>, input) as Promise<R>;
}

async function finished(client: WebDataClient, id: string) {
  for (const end = Date.now() + DEADLINE_MS; ; await new Promise((r) => setTimeout(r, 100))) {
    const res = await client.getBatchScrapeStatus(id);
    if (res.status === 'completed') return res;
    if (Date.now() > end) throw new Error(`batch ${id} still ${res.status}`);
  }
}

const rest = { runId: 'run-1', list: 'missing', offset: 2, limit: 2 };

describe('appendBatchScrape on the local service', () => {
  test('the URLs join the same job once: a keyed retry and a retry after a lost answer add nothing', async () => {
    const client = await service();
    const acts = createActivities({ client, store });
    const started = await call(env(), acts.startBatchScrape, { urlsFrom: { runId: 'run-1', list: 'missing', limit: 2 }, idempotencyKey: randomUUID() });
    assert.equal((await finished(client, started.jobId)).total, 2);
    const input = { jobId: started.jobId, urlsFrom: rest, idempotencyKey: randomUUID(), totalBefore: 2 };
    assert.deepEqual(await call(env(), acts.appendBatchScrape, input), { kind: 'appended', jobId: started.jobId, urls: 2, recovered: false });
    // The same key again (the first answer lost before the worker read it): 409, nothing added.
    assert.deepEqual(await call(env(), acts.appendBatchScrape, input), { kind: 'appended', jobId: started.jobId, urls: 2, recovered: true });
    // A retry attempt finds the job already grown and sends nothing.
    assert.deepEqual(await call(env(2), acts.appendBatchScrape, input), { kind: 'appended', jobId: started.jobId, urls: 2, recovered: true });
    const done = await finished(client, started.jobId);
    assert.equal(done.total, 4);
    assert.deepEqual((done.data ?? []).map((d) => String(d.metadata?.sourceURL).replace(site.url, '')).sort(), ['/about', '/blog', '/docs', '/shop']);
  });

  test('the open-source imitation appends but ignores keys: a retry attempt is kept from adding twice by the total', async () => {
    const client = await service({ imitate: 'firecrawl-oss' });
    const acts = createActivities({ client, store });
    const started = await call(env(), acts.startBatchScrape, { urlsFrom: { runId: 'run-1', list: 'missing', limit: 2 } });
    await finished(client, started.jobId);
    const input = { jobId: started.jobId, urlsFrom: rest, idempotencyKey: randomUUID(), totalBefore: 2 };
    assert.equal((await call(env(), acts.appendBatchScrape, input)).kind, 'appended');
    assert.deepEqual(await call(env(2), acts.appendBatchScrape, input), { kind: 'appended', jobId: started.jobId, urls: 2, recovered: true });
    assert.equal((await finished(client, started.jobId)).total, 4);
  });
});

describe('following a batch again after an append', () => {
  test('the follower goes on from the cursor its last collection ended at: the items read before are not read again', async () => {
    const client = await service();
    const acts = createActivities({ client, store });
    // Status pages read, by their skip.
    const reads: number[] = [];
    const read = client.getBatchScrapeStatus.bind(client);
    client.getBatchScrapeStatus = (id, page, opts) => {
      reads.push(Number(typeof page === 'object' ? page.skip ?? 0 : new URL(page ?? '', 'http://x').searchParams.get('skip') ?? 0));
      return read(id, page, opts);
    };
    const started = await call(env(), acts.startBatchScrape, { urlsFrom: { runId: 'run-1', list: 'missing', limit: 2 }, idempotencyKey: randomUUID() });
    await finished(client, started.jobId);
    const follow = { runId: 'run-1', kind: 'batch' as const, jobId: started.jobId, pageSize: 1 };
    const first = await call(env(), acts.followJob, follow);
    assert.equal(first.kind, 'done');
    const cursor = first.kind === 'done' ? first.collected.cursor : undefined;
    assert.equal(cursor?.skip, 2, 'the cursor stands after the 2 items read');

    await call(env(), acts.appendBatchScrape, { jobId: started.jobId, urlsFrom: rest, idempotencyKey: randomUUID(), totalBefore: 2 });
    await finished(client, started.jobId);
    reads.length = 0;
    const again = await call(env(), acts.followJob, { ...follow, ...(cursor ? { cursor: { skip: cursor.skip, pages: 0, written: 0 } } : {}) });
    assert.equal(again.kind, 'done');
    if (again.kind !== 'done') return;
    assert.equal(reads[0], 2, `status pages read from skip ${reads.join(', ')}`);
    assert.ok(reads.every((skip) => skip >= 2), `status pages read from skip ${reads.join(', ')}`);
    assert.equal(again.collected.written, 2, 'the 2 appended pages');
    assert.equal(again.collected.documents, 4, 'the job holds all 4 pages, each once');
    assert.equal(again.collected.cursor?.skip, 4);
  });
});

describe('appendBatchScrape on servers without append', () => {
  let fake: FakeServer;
  let client: WebDataClient;
  const jobId = randomUUID();
  before(async () => {
    fake = await new FakeServer().start();
    client = new WebDataClient({ apiKey: API_KEY, baseUrl: fake.base, allowPrivateAddresses: [new URL(site.url).host] });
  });
  after(async () => {
    await client.close();
    await fake.stop();
  });

  const cases: Array<[string, FakeResponse, Record<string, unknown>]> = [
    ['a strict schema older than the field (400 naming appendToId)', { status: 400, body: { success: false, error: 'Bad Request: unrecognized key: appendToId' } }, {}],
    ['no route at all (an HTML 404)', { status: 404, raw: '<!DOCTYPE html><html><body><pre>Cannot POST /v2/batch/scrape</pre></body></html>' }, {}],
    ['a server that drops the unknown key and starts another job', { status: 200, body: { success: true, id: 'other-job', url: 'x' } }, { startedJobId: 'other-job' }],
  ];
  for (const [what, response, extra] of cases) {
    test(`${what}: not-available`, async () => {
      fake.reset(() => response);
      const out = await call(env(), createActivities({ client, store }).appendBatchScrape, { jobId, urlsFrom: rest, idempotencyKey: randomUUID(), totalBefore: 2 });
      assert.equal(out.kind, 'not-available', JSON.stringify(out));
      assert.match((out as { reason: string }).reason, /not available on this service/);
      assert.deepEqual({ startedJobId: (out as { startedJobId?: string }).startedJobId }, { startedJobId: extra.startedJobId });
      assert.equal((fake.requests[0].body as { appendToId?: string }).appendToId, jobId);
    });
  }
});
