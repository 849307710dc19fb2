// Smoke test of the production-shaped Temporal (scripts/temporal-server.sh): the Temporal
// server itself on PostgreSQL, SQL visibility, the package's search attributes. A pipeline runs
// to the end and is found by its search attributes; a second one survives a server restart in
// the middle of its crawl. `npm run test:scale:smoke` (the first run builds the server once).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/client.js';
import { startPipeline, type PipelineHandle } from '../../src/client/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { startWebhookServer, type WebhookServer } from '../../src/webhooks/index.js';
import { createWebDataWorker } from '../../src/worker/worker.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';
import { quietTemporalLogs } from '../helpers/temporal.js';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server.js';
import { allowPrivateHosts } from '../helpers/private-hosts.js';

const API_KEY = 'local-dev-key';
const TASK_QUEUE = `scale-smoke-${Date.now()}`;

let server: TemporalServer;
let connection: Connection;
let nativeConnection: NativeConnection;
let client: Client;
let service: LocalService;
let api: WebDataClient;
let webhook: WebhookServer;
let dir: string;
let store: FilesystemStore;
let worker: Worker;
let workerRun: Promise<void>;
let workerError: unknown;
let serverStartMs = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds; the generous deadline only catches what never happens. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 180_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(500)) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

before(async () => {
  quietTemporalLogs();
  const t0 = Date.now();
  server = await startTemporalServer({ log: process.env.WEBDATA_TEMPORAL_VERBOSE === '1' ? (line) => console.error(line) : undefined });
  serverStartMs = Date.now() - t0;
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, namespace: server.namespace });
  nativeConnection = await NativeConnection.connect({ address: server.address });
  service = await startLocalService({ site: { pages: 200 }, logger: { info() {}, warn() {}, error() {} } as never });
  webhook = await startWebhookServer({ client, secret: service.teams[0].webhookSecret });
  // Runs name the demo site and the receiver on 127.0.0.1: allowed by host:port, as a user would.
  allowPrivateHosts(service.siteUrl as string, webhook.url);
  api = new WebDataClient({ apiKey: API_KEY, baseUrl: service.url });
  dir = mkdtempSync(join(tmpdir(), 'wd-scale-smoke-'));
  store = new FilesystemStore({ root: dir });
  worker = await createWebDataWorker({ connection: nativeConnection, namespace: server.namespace, taskQueue: TASK_QUEUE, client: api, store, collectPageSize: 10 });
  workerRun = worker.run().catch((err: unknown) => { workerError = err; });
});

after(async () => {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await workerRun;
  await nativeConnection?.close();
  await connection?.close();
  await webhook?.close();
  await api?.close();
  await service?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await server?.stop();
});

async function storedUrls(runId: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const doc of store.readDocuments(runId)) urls.push(doc.url);
  return urls;
}

async function jobsSince(endpoint: 'crawl' | 'batch_scrape', since: number): Promise<string[]> {
  const page = await api.listActivity({ endpoint, limit: 100 });
  return page.data.filter((e) => Date.parse(e.created_at) >= since - 1000).map((e) => e.id);
}

/** The run as SQL visibility sees it: found by its own search attributes once it closed. */
async function findBySearchAttributes(id: string, pages: number, host: string): Promise<number> {
  const query = `WorkflowId = '${id}' AND ExecutionStatus = 'Completed' AND WebdataOutcome = 'completed' AND WebdataStage = 'done' AND WebdataTargetHost = '${host}' AND WebdataPages = ${pages}`;
  const t0 = Date.now();
  await until(`visibility to list ${id} by ${query}`, async () => {
    const found: string[] = [];
    for await (const wf of client.workflow.list({ query })) found.push(wf.workflowId);
    return found.length === 1 ? found : undefined;
  });
  return Date.now() - t0;
}

function site(): string {
  return service.siteUrl as string;
}

test('the Temporal server on PostgreSQL: a pipeline completes and is found by its search attributes', async (t) => {
  t.diagnostic(`server ${server.address} (namespace ${server.namespace}) ready in ${(serverStartMs / 1000).toFixed(1)} s`);
  const since = Date.now();
  const id = `smoke-${Date.now()}`;
  const input: PipelineInput = {
    url: `${site()}/`,
    select: { include: ['^/docs', '^/shop/catalog'] },
    crawl: { limit: 15, maxDiscoveryDepth: 2 },
    webhookUrl: webhook.url,
  };
  const t0 = Date.now();
  const handle = await startPipeline(client, input, { taskQueue: TASK_QUEUE, workflowId: id });
  const result = await handle.result();
  const runMs = Date.now() - t0;
  assert.equal(result.status, 'completed', JSON.stringify(result.stages));
  assert.equal(result.stages.crawl?.status, 'completed');
  assert.equal(result.stages.batch?.status, 'completed');
  const urls = await storedUrls(id);
  assert.equal(new Set(urls).size, urls.length, 'a page was stored twice');
  assert.ok(urls.length >= 15, `only ${urls.length} pages stored`);
  assert.equal(result.documents, urls.length);
  assert.deepEqual(await jobsSince('crawl', since), [result.stages.crawl?.jobId]);
  assert.deepEqual(await jobsSince('batch_scrape', since), [result.stages.batch?.jobId]);

  const visibleMs = await findBySearchAttributes(id, result.documents, new URL(input.url).host);
  t.diagnostic(`pipeline: ${urls.length} pages in ${(runMs / 1000).toFixed(1)} s; listed by its search attributes ${(visibleMs / 1000).toFixed(1)} s after it completed`);
  assert.equal(workerError, undefined);
});

test('the server restarted in the middle of a crawl: the run still completes, each page stored once, one crawl job', async (t) => {
  const since = Date.now();
  const id = `smoke-restart-${Date.now()}`;
  const limit = 150;
  // Slow status pages (10 pages each) keep the crawl's collector busy for ~20 s after the
  // restart begins, so the server goes away under a running activity, not between tasks.
  service.faults.set('local', { latencyMs: 1500, routes: ['GET /v2/crawl/:id'] });
  const input: PipelineInput = {
    url: `${site()}/`,
    stages: { map: false, select: false, batch: false, interact: false },
    crawl: { limit },
    webhookUrl: webhook.url,
  };
  const t0 = Date.now();
  let handle: PipelineHandle;
  try {
    handle = await startPipeline(client, input, { taskQueue: TASK_QUEUE, workflowId: id });
    const storedBefore = await until('the collector to store 20 pages', async () => {
      const n = (await store.count(id)).documents;
      return n >= 20 ? n : undefined;
    });
    const { status } = await handle.describe();
    assert.equal(status.name, 'RUNNING', 'the run ended before the restart');
    const restart = await server.restartServer();
    const storedAfter = (await store.count(id)).documents;
    t.diagnostic(`server restarted after ${storedBefore} of ${limit} pages: stopped in ${(restart.stopMs / 1000).toFixed(1)} s, serving again ${(restart.startMs / 1000).toFixed(1)} s later; ${storedAfter} pages stored by then (the collector ${storedAfter < limit ? 'was still collecting' : 'had finished, its completion waiting for the server'})`);
  } finally {
    service.faults.set('local', undefined);
  }
  const result = await handle.result();
  const runMs = Date.now() - t0;
  assert.equal(result.status, 'completed', JSON.stringify(result.stages));
  const urls = await storedUrls(id);
  assert.equal(new Set(urls).size, urls.length, 'a page was stored twice');
  assert.equal(result.stages.crawl?.documents, urls.length);
  assert.equal(urls.length, limit);
  assert.deepEqual(await jobsSince('crawl', since), [result.stages.crawl?.jobId], 'more than one crawl job');
  const visibleMs = await findBySearchAttributes(id, result.documents, new URL(input.url).host);
  t.diagnostic(`pipeline across the restart: ${urls.length} pages in ${(runMs / 1000).toFixed(1)} s; listed by its search attributes ${(visibleMs / 1000).toFixed(1)} s after it completed`);
  assert.equal(workerError, undefined, `the worker stopped: ${String(workerError)}`);
});
