// A worker process killed with SIGKILL in the middle of a collector, then restarted: every
// page ends up stored exactly once and the service started exactly one crawl job. And a job
// start whose response is lost is recovered through the idempotency key, not bought twice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WebDataClient } from '../../packages/client/src/client.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';
import { startTestTemporal } from '../helpers/temporal.js';
import { nodeScriptArgs } from '../helpers/node-script.js';
import { pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';
import { allowPrivateHosts } from '../helpers/private-hosts.js';
import { localActivities } from '../helpers/local-activities.js';

const API_KEY = 'local-dev-key';
let env: TestWorkflowEnvironment;
let service: LocalService;
let api: WebDataClient;
let dir: string;
let store: FilesystemStore;
let bundlePath: string;
const workers: ChildProcess[] = [];

let forgetHosts = () => {};

before(async () => {
  // Workers start from the bundle kept on disk: each would otherwise run webpack (about 5 s of CPU).
  bundlePath = await pipelineWorkflowBundle();
  env = await startTestTemporal();
  service = await startLocalService({ site: { pages: 300 }, logger: { info() {}, warn() {}, error() {} } as never });
  // Runs crawl the demo site on 127.0.0.1: allowed by host:port here and in the workers spawned.
  forgetHosts = allowPrivateHosts(service.siteUrl as string);
  api = new WebDataClient({ apiKey: API_KEY, baseUrl: service.url });
  dir = mkdtempSync(join(tmpdir(), 'wd-crash-'));
  store = new FilesystemStore({ root: dir });
});

after(async () => {
  forgetHosts();
  for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
  await store?.close();
  await api?.close();
  await service?.close();
  await env?.teardown();
  rmSync(dir, { recursive: true, force: true });
});

function spawnWorker(taskQueue: string): ChildProcess {
  const child = spawn(process.execPath, nodeScriptArgs('src/worker.ts'), {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace ?? 'default',
      WEBDATA_API_URL: service.url,
      WEBDATA_API_KEY: API_KEY,
      WEBDATA_STORE: dir,
      WEBDATA_TASK_QUEUE: taskQueue,
      WEBDATA_WORKFLOW_BUNDLE: bundlePath,
      WEBDATA_COLLECT_PAGE_SIZE: '10',
      TEMPORAL_LOG_LEVEL: 'ERROR',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  workers.push(child);
  return child;
}

async function crawlJobsSince(since: number): Promise<string[]> {
  const res = await api.listActivity({ endpoint: 'crawl', limit: 100 });
  return res.data.filter((e) => Date.parse(e.created_at) >= since - 1000).map((e) => e.id);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('SIGKILL in the middle of a collector: every page stored once, one crawl job', async () => {
  const queue = `crash-${Date.now()}`;
  const since = Date.now();
  // Slow status pages make the collector long enough to be killed in the middle.
  service.faults.set('local', { latencyMs: 120, routes: ['GET /v2/crawl/:id'] });
  let worker = spawnWorker(queue);
  const handle = await startPipeline(env.client, {
    url: `${service.siteUrl}/`,
    stages: { map: false, select: false, batch: false, interact: false },
    crawl: { limit: 200 },
  }, { taskQueue: queue, workflowId: `crash-${Date.now()}` });

  // Killed in the same continuation as the count: the ≥ 17 pages left take ≥ 120 ms each, so
  // no extra await gives the collector time to finish first.
  const exited = new Promise((r) => worker.once('exit', r));
  await waitFor(async () => {
    if ((await store.count(handle.workflowId)).documents < 30) return false;
    worker.kill('SIGKILL');
    return true;
  }, 90_000, 'the collector to store 30 documents');
  await exited;
  const before = (await store.count(handle.workflowId)).documents;
  assert.ok(before < 200, `the collector finished before the kill (${before} stored)`);

  worker = spawnWorker(queue);
  const result = await handle.result();
  service.faults.set('local', undefined);

  const urls: string[] = [];
  for await (const doc of store.readDocuments(handle.workflowId)) urls.push(doc.url);
  assert.equal(new Set(urls).size, urls.length, 'a document was stored twice');
  assert.equal(result.stages.crawl?.documents, urls.length);
  // The service's own count of scraped pages matches what was stored.
  const status = await api.getCrawlStatus(result.stages.crawl?.jobId as string, { limit: 1 });
  assert.equal(status.completed, urls.length);
  assert.deepEqual(await crawlJobsSince(since), [result.stages.crawl?.jobId], 'more than one crawl job was started');

  const history = await handle.fetchHistory();
  const collectorAttempts = (history.events ?? [])
    .filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 1);
  assert.ok(collectorAttempts.some((a) => a >= 2), 'no activity was retried after the kill');
  worker.kill('SIGTERM');
});

test('a lost job-start response is recovered through the idempotency key (409), not bought twice', async () => {
  const queue = `lost-${Date.now()}`;
  const since = Date.now();
  service.faults.set('local', { dropNextStartResponses: 1 });
  const worker = spawnWorker(queue);
  try {
    const handle = await startPipeline(env.client, {
      url: `${service.siteUrl}/`,
      stages: { map: false, select: false, batch: false, interact: false },
      crawl: { limit: 5 },
    }, { taskQueue: queue, workflowId: `lost-${Date.now()}` });
    const result = await handle.result();
    assert.equal(result.stages.crawl?.status, 'completed', JSON.stringify(result.stages.crawl));
    assert.deepEqual(await crawlJobsSince(since), [result.stages.crawl?.jobId]);
    const history = await handle.fetchHistory();
    // The start (a local activity) answered with the job the idempotency key found.
    const results = localActivities(history.events, 'startCrawl').map((call) => call.result as { recovered?: boolean; jobId?: string } | undefined);
    assert.ok(results.some((r) => r?.recovered === true && r.jobId === result.stages.crawl?.jobId), 'the start was not recovered');
  } finally {
    service.faults.set('local', undefined);
    worker.kill('SIGTERM');
  }
});
