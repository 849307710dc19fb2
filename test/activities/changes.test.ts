// Change tracking of series runs, activity by activity: the content hash, the collector storing
// stubs for unchanged pages and diffs for changed ones, the close that counts and lists removed
// pages, and the signed summary webhook.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/client.js';
import { verifyWebhookSignature } from '../../packages/client/src/webhooks.js';
import { createActivities } from '../../src/activities/index.js';
import { CHANGES_SIGNATURE_HEADER, contentHash, normalizedContent, seriesRuns } from '../../src/activities/changes.js';
import type { ChangeReport } from '../../src/activities/types.js';
import { FilesystemStore, type StoredDocument } from '../../packages/storage/src/index.js';
import { parsePipelineInput } from '../../src/workflows/input.js';
import { FakeServer } from '../api/fake-server.js';

const API_KEY = 'wd-test-secret-key-0123456789';
const JOB_A = '0190a7a0-0000-7000-8000-00000000000a';
const JOB_B = '0190a7a0-0000-7000-8000-00000000000b';
const SECRET = 'summary-secret-0123456789';
let server: FakeServer;
let dir: string;
let store: FilesystemStore;
let client: WebDataClient;
let acts: ReturnType<typeof createActivities>;

before(async () => {
  server = await new FakeServer().start();
  dir = mkdtempSync(join(tmpdir(), 'wd-changes-'));
  store = new FilesystemStore({ root: dir });
  client = new WebDataClient({ apiKey: API_KEY, baseUrl: server.base });
  acts = createActivities({ client, store, heartbeatEveryMs: 50, changesWebhookSecret: SECRET });
});

after(async () => {
  await client.close();
  await store.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => server.reset());

const quiet = new DefaultLogger('ERROR');
const env = () => new MockActivityEnvironment({ workflowExecution: { workflowId: 'wf-test', runId: 'r1' } } as never, { logger: quiet });
function call<I, R>(fn: (input: I) => Promise<R>, input: I): Promise<R> {
  return env().run(fn as (input: unknown) => Promise<R>, input) as Promise<R>;
}

interface Page { url: string; markdown: string; status?: number }

/** The fake service answers one completed crawl with these pages (and no errors). */
function serve(pages: Page[]): void {
  server.handler = (req) => req.path.endsWith('/errors')
    ? { body: { success: true, errors: [], robotsBlocked: [] } }
    : { body: { success: true, status: 'completed', total: pages.length, completed: pages.length, creditsUsed: pages.length, next: null, data: pages.map((p) => ({ markdown: p.markdown, metadata: { sourceURL: p.url, url: p.url, statusCode: p.status ?? 200 } })) } };
}

async function docsOf(runId: string): Promise<Map<string, StoredDocument>> {
  const out = new Map<string, StoredDocument>();
  for await (const d of store.readDocuments(runId)) out.set(d.url, d);
  return out;
}

describe('the content hash', () => {
  test('line endings, trailing spaces and runs of blank lines do not count; words and the status code do', () => {
    const a = contentHash({ markdown: '# Title\n\nSome text.\n', metadata: { statusCode: 200 } });
    assert.equal(contentHash({ markdown: '# Title  \r\n\r\n\r\n\r\nSome text.', metadata: { statusCode: 200 } }), a);
    assert.equal(contentHash({ markdown: '# Title\n\nSome text.' }), a, 'no status code reads as 200');
    assert.notEqual(contentHash({ markdown: '# Title\n\nSome other text.', metadata: { statusCode: 200 } }), a);
    assert.notEqual(contentHash({ markdown: '# Title\n\nSome text.', metadata: { statusCode: 404 } }), a);
    assert.equal(normalizedContent({ markdown: 'a\t \n\n\n\nb' }), '200\na\n\nb');
  });

  test('input.changes: series must be a name, webhookUrl an http(s) URL', () => {
    assert.throws(() => parsePipelineInput({ url: 'http://site.test/', changes: { series: 'has space' } }, { allowPrivateAddresses: false }), /changes\.series: must be 1-128 letters/);
    assert.throws(() => parsePipelineInput({ url: 'http://site.test/', changes: { series: 's', webhookUrl: 'ftp://x' } }, { allowPrivateAddresses: false }), /changes\.webhookUrl/);
    assert.throws(() => parsePipelineInput({ url: 'http://site.test/', changes: { series: 's', extra: 1 } }, { allowPrivateAddresses: false }), /changes/);
    assert.deepEqual(parsePipelineInput({ url: 'http://site.test/', changes: { series: 'shop-daily' } }, { allowPrivateAddresses: false }).changes, { series: 'shop-daily' });
  });
});

describe('a series of two runs', () => {
  const site = 'http://site.test';
  const first: Page[] = [
    { url: `${site}/`, markdown: '# Home\n\nWelcome.' },
    { url: `${site}/a`, markdown: '# A\n\nline 1\nline 2\nline 3' },
    { url: `${site}/b`, markdown: '# B\n\nsame' },
    { url: `${site}/gone`, markdown: '# Gone soon' },
    { url: `${site}/dead`, markdown: '# Dead soon' },
  ];
  const second: Page[] = [
    { url: `${site}/`, markdown: '# Home\r\n\r\nWelcome.  ' }, // only whitespace differs
    { url: `${site}/a`, markdown: '# A\n\nline 1\nline 2 changed\nline 3' },
    { url: `${site}/b`, markdown: '# B\n\nsame' },
    { url: `${site}/dead`, markdown: '# Not Found', status: 404 },
    { url: `${site}/new`, markdown: '# New' },
  ];

  test('first run: every page new and stored whole; the series records it once completed', async () => {
    assert.deepEqual(await call(acts.openSeriesRun, { series: 's1', runId: 'run-1' }), { previousRunId: null });
    serve(first);
    const collected = await call(acts.collectCrawl, { runId: 'run-1', jobId: JOB_A, changes: { previousRunId: null } });
    assert.equal(collected.documents, 5);
    const docs = await docsOf('run-1');
    for (const d of docs.values()) {
      assert.equal(d.change, 'new');
      assert.equal(typeof d.markdown, 'string');
      assert.equal(d.contentHash, contentHash(d));
    }
    const report = await call(acts.closeSeriesRun, { series: 's1', runId: 'run-1', workflowId: 'wf-1', previousRunId: null, record: true });
    assert.deepEqual(report.counts, { new: 5, changed: 0, unchanged: 0, removed: 0 });
    assert.deepEqual((await seriesRuns(store, 's1')).map((r) => r.runId), ['run-1']);
  });

  test('second run: unchanged pages become stubs naming the copy, a changed page carries a diff, removed pages are listed', async () => {
    assert.deepEqual(await call(acts.openSeriesRun, { series: 's1', runId: 'run-2' }), { previousRunId: 'run-1' });
    serve(second);
    const collected = await call(acts.collectCrawl, { runId: 'run-2', jobId: JOB_B, changes: { previousRunId: 'run-1' } });
    assert.equal(collected.documents, 5);
    const docs = await docsOf('run-2');
    assert.deepEqual(Object.fromEntries([...docs].map(([u, d]) => [u.replace(site, ''), d.change])), { '/': 'unchanged', '/a': 'changed', '/b': 'unchanged', '/dead': 'removed', '/new': 'new' });
    for (const u of ['/', '/b']) {
      const stub = docs.get(`${site}${u}`) as StoredDocument;
      assert.equal(stub.markdown, undefined, `${u} stored again`);
      assert.deepEqual(stub.copyOf, { runId: 'run-1', jobId: JOB_A });
    }
    const diff = String(docs.get(`${site}/a`)?.diff);
    assert.match(diff, /^-line 2$/m);
    assert.match(diff, /^\+line 2 changed$/m);
    assert.match(diff, /run run-1/);

    // A retried collection writes nothing new and decides the same.
    const again = await call(acts.collectCrawl, { runId: 'run-2', jobId: JOB_B, changes: { previousRunId: 'run-1' } });
    assert.equal(again.written, 0);

    const report = await call(acts.closeSeriesRun, { series: 's1', runId: 'run-2', workflowId: 'wf-2', previousRunId: 'run-1', record: false });
    assert.deepEqual(report.counts, { new: 1, changed: 1, unchanged: 2, removed: 2 });
    assert.deepEqual(report.removed.sort(), [`${site}/dead`, `${site}/gone`]);
    const listed: string[] = [];
    for await (const l of store.readLinks('run-2', 'removed')) listed.push(l.url);
    assert.deepEqual(listed.sort(), [`${site}/dead`, `${site}/gone`]);
    // Not recorded (record: false, e.g. a partial run): the baseline stays run-1.
    assert.deepEqual((await seriesRuns(store, 's1')).map((r) => r.runId), ['run-1']);
    const closedAgain = await call(acts.closeSeriesRun, { series: 's1', runId: 'run-2', workflowId: 'wf-2', previousRunId: 'run-1', record: true });
    assert.deepEqual(closedAgain.counts, report.counts, 'a retried close counts the same');
    assert.deepEqual((await seriesRuns(store, 's1')).map((r) => r.runId), ['run-1', 'run-2']);
    assert.deepEqual(await call(acts.openSeriesRun, { series: 's1', runId: 'run-2' }), { previousRunId: 'run-1' }, 'a run never compares with itself');
  });

  test('a third run compares with the second: stubs keep naming the first copy', async () => {
    serve(second);
    await call(acts.collectCrawl, { runId: 'run-3', jobId: JOB_A, changes: { previousRunId: 'run-2' } });
    const docs = await docsOf('run-3');
    assert.deepEqual((docs.get(`${site}/b`) as StoredDocument).copyOf, { runId: 'run-1', jobId: JOB_A });
    assert.deepEqual((docs.get(`${site}/a`) as StoredDocument).copyOf, { runId: 'run-2', jobId: JOB_B });
    assert.equal(docs.get(`${site}/dead`)?.change, 'unchanged', 'still 404: nothing new to report');
    const report = await call(acts.closeSeriesRun, { series: 's1', runId: 'run-3', workflowId: 'wf-3', previousRunId: 'run-2', record: true });
    assert.deepEqual(report.counts, { new: 0, changed: 0, unchanged: 5, removed: 0 });
  });

  test('a page gone last run is not removed twice, and one that comes back is new', async () => {
    serve([...second.filter((p) => !p.url.endsWith('/dead')), { url: `${site}/gone`, markdown: '# Back again' }]);
    await call(acts.collectCrawl, { runId: 'run-4', jobId: JOB_A, changes: { previousRunId: 'run-3' } });
    const report = await call(acts.closeSeriesRun, { series: 's1', runId: 'run-4', workflowId: 'wf-4', previousRunId: 'run-3', record: true });
    // /dead answered 404 in run-3 and is absent now: already reported removed in run-2.
    assert.deepEqual(report.counts, { new: 1, changed: 0, unchanged: 4, removed: 0 });
    assert.deepEqual(report.new, [`${site}/gone`]);
    serve([...second, { url: `${site}/gone`, markdown: '# Back again' }]);
    await call(acts.collectCrawl, { runId: 'run-5', jobId: JOB_A, changes: { previousRunId: 'run-4' } });
    const back = await call(acts.closeSeriesRun, { series: 's1', runId: 'run-5', workflowId: 'wf-5', previousRunId: 'run-4', record: true });
    assert.deepEqual(back.counts, { new: 1, changed: 0, unchanged: 5, removed: 0 }, '/dead: not in run-4, 404 now: a new URL, not a removal');
  });
});

describe('the summary webhook', () => {
  let receiver: Server;
  let url: string;
  let answer = 204;
  const got: Array<{ body: string; signature?: string }> = [];
  let summary: ReturnType<typeof createActivities>;
  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ body: Buffer.concat(chunks).toString('utf8'), signature: req.headers[CHANGES_SIGNATURE_HEADER] as string | undefined });
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    // The summary goes to this receiver on 127.0.0.1: allowed by its host:port, nothing else.
    summary = createActivities({ client, store, changesWebhookSecret: SECRET, allowPrivateAddresses: [new URL(url).host] });
  });
  after(() => new Promise<void>((ok) => receiver.close(() => ok())));

  const report: ChangeReport = {
    series: 's1', runId: 'run-2', previousRunId: 'run-1', counts: { new: 1, changed: 1, unchanged: 2, removed: 2 },
    new: ['http://site.test/new'], changed: ['http://site.test/a'], removed: [], removedRef: { runId: 'run-2', list: 'removed' }, baseline: true,
  };

  test('is signed with the worker secret over the raw body', async () => {
    answer = 204;
    assert.equal(await call(summary.sendChangeSummary, { url, workflowId: 'wf-2', status: 'completed', report }), 'sent (204)');
    const last = got.at(-1);
    assert.ok(last && verifyWebhookSignature(last.body, last.signature, SECRET));
    assert.ok(!verifyWebhookSignature(last.body, last.signature, 'another-secret-0123456'));
    assert.deepEqual(JSON.parse(last.body).counts, report.counts);
  });

  test('a refusal is reported, a 5xx fails the attempt (retried), no secret means not sent', async () => {
    answer = 410;
    assert.equal(await call(summary.sendChangeSummary, { url, workflowId: 'wf-2', status: 'completed', report }), 'refused by the receiver (410)');
    answer = 503;
    await assert.rejects(call(summary.sendChangeSummary, { url, workflowId: 'wf-2', status: 'completed', report }), /answered 503/);
    const unsigned = createActivities({ client, store });
    const before = got.length;
    assert.match(await call(unsigned.sendChangeSummary, { url, workflowId: 'wf-2', status: 'completed', report }), /^not sent: the worker has no WEBDATA_CHANGES_WEBHOOK_SECRET/);
    assert.equal(got.length, before);
  });
});
