// Against a server nobody on this team wrote: the open-source build of the same API
// (../shared/firecrawl-oss, started by scripts/test-compat.mjs, URL in WEBDATA_OSS_URL).
//   1. every client method answers a typed result or a typed error (never an untyped crash),
//      and the routes that server lacks are a typed "not available";
//   2. map → select → crawl → batch with the webhook receiver completes: each page stored once,
//      stored URLs equal to what the server returned, deliveries accepted and signalled;
//   3. cancelling a running pipeline cancels the server's crawl.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { WebDataClient, WebDataApiError } from '../../packages/client/src/index.js';
import type { JobStatusResponse } from '../../packages/contract/src/index.js';
import { startPipeline, cancelPipeline, getProgress } from '../../src/client/pipeline.js';
import { createWebDataWorker } from '../../src/worker.js';
import { startWebhookServer, type WebhookServer, type WebhookDecision } from '../../src/webhooks/index.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { startDemoSite, type DemoSite } from '../../packages/service/src/demo-site/index.js';
import { startTestTemporal } from '../helpers/temporal.js';

const OSS_URL = process.env.WEBDATA_OSS_URL;
// That server refuses 127.0.0.1 as a target ("must have a valid top-level domain").
const SITE_HOST = process.env.WEBDATA_OSS_SITE_HOST ?? '127.0.0.10';
const TASK_QUEUE = 'compat';

let env: TestWorkflowEnvironment;
let site: DemoSite;
let api: WebDataClient;
let store: FilesystemStore;
let webhook: WebhookServer;
let worker: Worker;
let workerRun: Promise<void>;
let dir: string;
const decisions: WebhookDecision[] = [];
let proxy: Server;
/** What the worker asked the server, through a recording proxy: method, path, status. */
const calls: Array<{ method: string; path: string; status: number }> = [];

/**
 * A recording proxy in front of the server, so the test counts the jobs the server really
 * started (that server has no activity listing). Absolute URLs in answers (job url, next)
 * are rewritten to the proxy, as if the server were there.
 */
async function startRecordingProxy(target: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${req.url}`, { method: req.method, headers, body })
        .then(async (answer) => {
          const own = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
          const text = (await answer.text()).split(target).join(own);
          calls.push({ method: req.method ?? 'GET', path: new URL(req.url ?? '/', own).pathname, status: answer.status });
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(text);
        })
        .catch((err: unknown) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(err));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const started = (kind: 'crawl' | 'batch/scrape', from: number) =>
  calls.slice(from).filter((c) => c.method === 'POST' && c.path === `/v2/${kind}` && c.status === 200).length;

before(async () => {
  assert.ok(OSS_URL, 'WEBDATA_OSS_URL is not set: run through `npm run test:compat`');
  dir = mkdtempSync(join(tmpdir(), 'webdata-compat-'));
  env = await startTestTemporal();
  site = await startDemoSite({ host: SITE_HOST, pages: 36 });
  // That server scrapes each page in a fresh Chromium context: on a busy 2-core machine one
  // scrape took over 60 s (the client's default deadline), so the deadline here is generous.
  store = new FilesystemStore({ root: join(dir, 'store') });
  // That server signs nothing: no secret, deliveries are hints that wake the workflow.
  webhook = await startWebhookServer({ client: env.client, host: SITE_HOST, onDecision: (d) => decisions.push(d) });
  // Runs name the site and the receiver on loopback: allowed by host:port, as a user would export it.
  process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES = [new URL(site.url).host, new URL(webhook.url).host].join(',');
  api = new WebDataClient({ apiKey: 'compat-key', baseUrl: OSS_URL, timeoutMs: 300_000 });
  const recording = await startRecordingProxy(OSS_URL);
  proxy = recording.server;
  const workerApi = new WebDataClient({ apiKey: 'compat-key', baseUrl: recording.url, timeoutMs: 300_000 });
  worker = await createWebDataWorker({ connection: env.nativeConnection, taskQueue: TASK_QUEUE, client: workerApi, store });
  workerRun = worker.run();
});

after(async () => {
  worker?.shutdown();
  await workerRun?.catch(() => undefined);
  await webhook?.close();
  proxy?.close();
  await api?.close();
  await store?.close();
  await site?.close();
  await env?.teardown();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 600_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 500))) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

/**
 * The run's result, or a failure naming where it stands after 20 min (a crawl that never ends
 * on that server would otherwise hang the whole CI step).
 */
async function resultWithin<R>(handle: { result(): Promise<R> }, id: string, timeoutMs = 1_200_000): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      getProgress(env.client, id)
        .then((p) => reject(new Error(`run ${id} not finished after ${timeoutMs} ms: ${JSON.stringify(p.stages)}`)))
        .catch((err: unknown) => reject(new Error(`run ${id} not finished after ${timeoutMs} ms (${String(err)})`)));
    }, timeoutMs);
  });
  try {
    return await Promise.race([handle.result(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every item of a finished job, read as the server serves it (it ignores skip: de-duplicate by URL). */
async function jobUrls(read: () => Promise<JobStatusResponse>): Promise<string[]> {
  const status = await until('the job to finish', async () => {
    const s = await read();
    return s.status === 'scraping' ? undefined : s;
  });
  return [...new Set(status.data.map((d) => String(d.metadata?.sourceURL ?? d.metadata?.url)))].sort();
}

test('1. every client method: a typed result or a typed error; missing routes are "not available"', async () => {
  const outcomes: Array<{ method: string; outcome: string }> = [];
  const expectNotAvailable = new Set(['interact', 'stopInteraction', 'createBrowser', 'listBrowsers', 'deleteBrowser', 'askSupport', 'listActivity', 'getHistoricalCreditUsage', 'getBatchScrapeErrors']);
  const crawl = await api.startCrawl({ url: `${site.url}/`, limit: 3 });
  const batch = await api.startBatchScrape({ urls: [`${site.url}/about`] });
  const scrape = await api.scrape({ url: `${site.url}/about` });
  const anyId = '0190c0de-0000-7000-8000-000000000000';
  const calls: Record<string, () => Promise<unknown>> = {
    scrape: () => api.scrape({ url: `${site.url}/blog` }),
    getScrape: () => api.getScrape(String(scrape.data.metadata?.scrapeId ?? anyId)),
    interact: () => api.interact(String(scrape.data.metadata?.scrapeId ?? anyId), { code: '1', language: 'node' }),
    stopInteraction: () => api.stopInteraction(String(scrape.data.metadata?.scrapeId ?? anyId)),
    startCrawl: () => Promise.resolve(crawl),
    getCrawlStatus: () => api.getCrawlStatus(crawl.id),
    getCrawlErrors: () => api.getCrawlErrors(crawl.id),
    listActiveCrawls: () => api.listActiveCrawls(),
    previewCrawlParams: () => api.previewCrawlParams({ url: `${site.url}/`, prompt: 'only the docs' }),
    cancelCrawl: () => api.cancelCrawl(crawl.id),
    startBatchScrape: () => Promise.resolve(batch),
    getBatchScrapeStatus: () => api.getBatchScrapeStatus(batch.id),
    getBatchScrapeErrors: () => api.getBatchScrapeErrors(batch.id),
    cancelBatchScrape: () => api.cancelBatchScrape(batch.id),
    map: () => api.map({ url: `${site.url}/` }),
    search: () => api.search({ query: 'docs' }),
    createBrowser: () => api.createBrowser({}),
    listBrowsers: () => api.listBrowsers({}),
    deleteBrowser: () => api.deleteBrowser(anyId),
    askSupport: () => api.askSupport({ question: 'why did my crawl fail?', jobId: crawl.id }),
    getExtract: () => api.getExtract(anyId),
    listActivity: () => api.listActivity({}),
    getCreditUsage: () => api.getCreditUsage(),
    getHistoricalCreditUsage: () => api.getHistoricalCreditUsage({}),
  };
  const untyped: string[] = [];
  const wrongKind: string[] = [];
  for (const [method, call] of Object.entries(calls)) {
    try {
      await call();
      outcomes.push({ method, outcome: 'result' });
      if (expectNotAvailable.has(method)) wrongKind.push(`${method}: answered, expected "not available"`);
    } catch (err) {
      if (!(err instanceof WebDataApiError)) {
        untyped.push(`${method}: ${String(err)}`);
        continue;
      }
      outcomes.push({ method, outcome: `${err.kind} ${err.status ?? ''}`.trim() });
      if (expectNotAvailable.has(method) && err.kind !== 'not_available') wrongKind.push(`${method}: ${err.kind} ${err.status}, expected not_available`);
    }
  }
  console.log(outcomes.map((o) => `  ${o.method.padEnd(26)} ${o.outcome}`).join('\n'));
  assert.deepEqual(untyped, [], 'untyped failures');
  assert.deepEqual(wrongKind, [], 'missing routes not reported as "not available"');
  // Every method that the server has answers a result, for the routes it has.
  for (const method of ['scrape', 'startCrawl', 'getCrawlStatus', 'getCrawlErrors', 'listActiveCrawls', 'startBatchScrape', 'getBatchScrapeStatus', 'map', 'getCreditUsage']) {
    assert.equal(outcomes.find((o) => o.method === method)?.outcome, 'result', `${method} failed`);
  }
});

const input = (): PipelineInput => ({
  url: `${site.url}/`,
  select: { include: ['^/docs', '^/shop/catalog'] },
  crawl: { limit: 12, maxDiscoveryDepth: 2 },
  budget: { credits: 200 },
  stages: { interact: false },
  webhookUrl: webhook.url,
});

test('2. map → select → crawl → batch with webhooks: completed, each page once, the URLs the server returned', async () => {
  const id = `compat-${Date.now()}`;
  const before = decisions.length;
  const callsBefore = calls.length;
  const handle = await startPipeline(env.client, input(), { taskQueue: TASK_QUEUE, workflowId: id });
  const result = await resultWithin(handle, id);
  const table = Object.entries(result.stages).map(([stage, r]) => `  ${stage.padEnd(9)} ${r?.status}${r?.reason ? ` (${r.reason})` : ''} documents ${r?.documents ?? '-'} credits ${r?.credits ?? '-'}`);
  console.log(`run ${id}: ${result.status}, ${result.documents} documents, ${result.credits.spent} credits\n${table.join('\n')}`);
  assert.equal(result.status, 'completed', JSON.stringify(result.stages));
  const { crawl, batch } = result.stages;
  assert.ok(crawl?.jobId, 'no crawl job');
  const jobs = { crawl: started('crawl', callsBefore), batch: started('batch/scrape', callsBefore) };
  console.log(`jobs the server started for the run: crawl ${jobs.crawl}, batch ${jobs.batch}; requests ${calls.length - callsBefore} (${calls.slice(callsBefore).filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path.replace(/[0-9a-f-]{36}/, ':id')} ${c.status}`).join(', ') || 'none failed'})`);
  assert.equal(jobs.crawl, 1, 'the crawl was bought more than once');
  assert.equal(jobs.batch, batch?.jobId ? 1 : 0, 'the batch was bought more than once');
  assert.equal(result.credits.spent, Object.values(result.credits.byStage).reduce((a, b) => a + (b ?? 0), 0), 'the credit total leaves a stage out');

  const stored: string[] = [];
  for await (const doc of store.readDocuments(id)) if (doc.kind === 'crawl' || doc.kind === 'batch') stored.push(doc.url);
  assert.equal(new Set(stored).size, stored.length, 'a page was stored twice');
  const returned = [
    ...(await jobUrls(() => api.getCrawlStatus(crawl.jobId as string))),
    ...(batch?.jobId ? await jobUrls(() => api.getBatchScrapeStatus(batch.jobId as string)) : []),
  ];
  assert.deepEqual([...stored].sort(), [...new Set(returned)].sort(), 'stored URLs differ from what the server returned');

  const mine = decisions.slice(before);
  assert.ok(mine.length > 0, 'no webhook delivery reached the receiver');
  assert.deepEqual(mine.filter((d) => d.outcome === 'rejected'), [], 'a delivery was refused');
  assert.ok(mine.some((d) => d.outcome === 'signalled'), 'no delivery became a signal');
});

test('3. cancelling a running pipeline cancels the server\'s crawl', async () => {
  const id = `compat-cancel-${Date.now()}`;
  // A slow crawl (one page at a time, 2 s apart) that is surely running when cancelled.
  const handle = await startPipeline(env.client, { ...input(), crawl: { limit: 30, delay: 2 }, stages: { interact: false, batch: false } }, { taskQueue: TASK_QUEUE, workflowId: id });
  const jobId = await until('the crawl job to start', async () => Object.entries((await getProgress(env.client, id)).jobs).find(([key]) => key.startsWith('crawl#'))?.[1]);
  await cancelPipeline(env.client, id);
  // A cancelled run ends as a cancelled workflow (after its cleanup cancelled the job).
  await assert.rejects(handle.result(), /cancel/i);
  const status = await until('the server to report the crawl cancelled', async () => {
    const s = await api.getCrawlStatus(jobId);
    return s.status === 'scraping' ? undefined : s;
  });
  assert.equal(status.status, 'cancelled');
});
