// Streaming collection on the real stack: a crawl's pages reach the store while the job still
// runs. By construction, not timing: the site below holds one page until the test releases it,
// so the job cannot complete before the test has seen the other pages stored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { FollowJobResult } from '../../src/activities/types.js';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { getProgress, startPipeline } from '../../src/client/pipeline.js';
import { createWebDataWorker } from '../../src/worker.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { startStack, storedUrls } from '../helpers/stack.js';
import { pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';

const PAGES = 8;
const BIN = 'bin/webdata.js';

/** Polls until `check` holds; the generous deadline only catches what never happens. */
async function until(what: string | (() => Promise<string>), check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 250))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : await what()}`);
  }
}

/** What a stuck wait saw: the run's progress and what the store holds. */
const seen = (id: string) => async () => `the free pages stored; stored ${JSON.stringify(await storedUrls(stack, id))}, progress ${JSON.stringify((await getProgress(stack.temporal.client, id).catch(String)))}`;

/**
 * A site of PAGES pages and `hold`, which answers only once `release()` is called. Each test
 * crawls its own prefix (`/g<n>/`): the service caches pages it fetched, a released one too.
 */
function holdingSite() {
  let release!: () => void;
  let released = new Promise<void>((r) => { release = r; });
  let generation = 0;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/g\d+/, '');
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head><title>${path}</title></head><body>${body}</body></html>`);
    };
    if (path === '/') return html([...Array.from({ length: PAGES }, (_, i) => `<a href="p${i + 1}">page ${i + 1}</a>`), '<a href="hold">held</a>'].join(' '));
    if (/^\/p\d+$/.test(path)) return html(`<h1>Page ${path}</h1><p>Content of ${path}.</p>`);
    if (path === '/hold') return void released.then(() => html('<h1>Held</h1><p>Released at last.</p>'));
    res.writeHead(404).end();
  });
  return {
    server,
    listen: () => new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    release: () => release(),
    /** A fresh hold, and the prefix to crawl under. */
    reset: () => {
      released = new Promise<void>((r) => { release = r; });
      return `/g${++generation}/`;
    },
  };
}

let stack: DevStack;
const site = holdingSite();
let siteUrl: string;
let connection: NativeConnection;

async function startWorker(): Promise<{ worker: Worker; done: Promise<void> }> {
  const worker = await createWebDataWorker({ connection, namespace: stack.temporal.namespace, taskQueue: stack.taskQueue, client: stack.api, store: stack.store, workflowBundlePath: await pipelineWorkflowBundle() });
  return { worker, done: worker.run() };
}

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('streaming-collect', () => {
  before(async () => {
    siteUrl = await site.listen();
    // The stack's client sends crawls of this site on 127.0.0.1: allowed by its host:port.
    stack = await startStack({ worker: false, allowPrivateHosts: [new URL(siteUrl).host] });
    connection = await NativeConnection.connect({ address: stack.temporal.address });
  });
  after(async () => {
    site.release();
    await stack?.close();
    await connection?.close();
    site.server.close();
  });

  const input = (prefix: string): PipelineInput => ({
    url: `${siteUrl}${prefix}`,
    stages: { map: false, select: false, batch: false, interact: false },
    // The held page must outlast the test's wait, whatever the machine's load.
    crawl: { limit: PAGES + 5, scrapeOptions: { timeout: 600_000 } },
  });

  /** The crawl job of a run, once it has started. */
  async function crawlJob(id: string): Promise<string> {
    let jobId: string | undefined;
    await until('the crawl job to start', async () => {
      jobId = (await getProgress(stack.temporal.client, id).catch(() => undefined))?.stages.crawl?.jobId;
      return jobId !== undefined;
    });
    return jobId as string;
  }

  /** Every followJob call of a run: its input, the attempt that finished it, its result. */
  async function followCalls(id: string): Promise<Array<{ input: { cursor?: { skip: number } }; attempt?: number; result?: FollowJobResult }>> {
    const history = await stack.temporal.client.workflow.getHandle(id).fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'followJob');
    return scheduled.map((e) => {
      const sid = Number(e.eventId);
      const started = events.find((x) => Number(x.activityTaskStartedEventAttributes?.scheduledEventId ?? -1) === sid);
      const completed = events.find((x) => Number(x.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1) === sid);
      const payload = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
      return {
        input: defaultPayloadConverter.fromPayload(e.activityTaskScheduledEventAttributes?.input?.payloads?.[0] as never),
        attempt: started?.activityTaskStartedEventAttributes?.attempt ?? undefined,
        result: payload ? defaultPayloadConverter.fromPayload<FollowJobResult>(payload as never) : undefined,
      };
    });
  }

  describe('streaming collection', () => {
    test('pages are in the store before the crawl job completes; each once at the end', async () => {
      const prefix = site.reset();
      const w = await startWorker();
      try {
        const id = `stream-${Date.now()}`;
        const handle = await startPipeline(stack.temporal.client, input(prefix), { taskQueue: stack.taskQueue, workflowId: id });
        const jobId = await crawlJob(id);
        await until(seen(id), async () => (await storedUrls(stack, id)).length >= PAGES + 1);
        const status = await stack.api.getCrawlStatus(jobId, { limit: 1 });
        assert.equal(status.status, 'scraping', 'the job is still held by /hold');

        site.release();
        const result = await handle.result();
        assert.equal(result.status, 'completed', JSON.stringify(result.stages));
        const urls = await storedUrls(stack, id);
        assert.equal(urls.length, PAGES + 2, urls.join('\n'));
        assert.equal(new Set(urls).size, urls.length, 'each page stored once');
        assert.equal(result.stages.crawl?.documents, PAGES + 2);
        assert.ok(!result.stages.crawl?.notes?.some((n) => n.includes('ignores skip')), 'the local service honours skip');
      } finally {
        w.worker.shutdown();
        await w.done;
      }
    });

    test('a worker stopped mid-follow: the next one resumes from the cursor, no page stored twice', async () => {
      const prefix = site.reset();
      const first = await startWorker();
      const id = `stream-kill-${Date.now()}`;
      const handle = await startPipeline(stack.temporal.client, input(prefix), { taskQueue: stack.taskQueue, workflowId: id });
      try {
        await crawlJob(id);
        await until(seen(id), async () => (await storedUrls(stack, id)).length >= PAGES + 1);
      } finally {
        first.worker.shutdown();
        await first.done;
      }

      const second = await startWorker();
      try {
        site.release();
        const result = await handle.result();
        assert.equal(result.status, 'completed', JSON.stringify(result.stages));
        const urls = await storedUrls(stack, id);
        assert.equal(urls.length, PAGES + 2, urls.join('\n'));
        assert.equal(new Set(urls).size, urls.length, 'each page stored once');
        // The stopped worker's call went on elsewhere: retried from its last heartbeat, or (when
        // it handed back) a next call from the cursor it returned.
        const calls = await followCalls(id);
        const last = calls.at(-1);
        const why = JSON.stringify(calls);
        assert.ok(calls.length >= 2 || (last?.attempt ?? 1) >= 2, `resumed after the stop: ${why}`);
        if (calls.length >= 2) assert.ok((last?.input.cursor?.skip ?? 0) >= 1, why);
        assert.equal(last?.result?.kind, 'done', why);
      } finally {
        second.worker.shutdown();
        await second.done;
      }
    });

    test('webdata export --follow prints documents as they arrive and ends when the run ends', async () => {
      const prefix = site.reset();
      const w = await startWorker();
      try {
        const id = `stream-export-${Date.now()}`;
        const handle = await startPipeline(stack.temporal.client, input(prefix), { taskQueue: stack.taskQueue, workflowId: id });
        const child = spawn(process.execPath, [BIN, 'export', id, '--follow', '--store', stack.storeSpec], {
          env: { ...process.env, TEMPORAL_ADDRESS: stack.temporal.address, TEMPORAL_NAMESPACE: stack.temporal.namespace },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
        child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
        const closed = new Promise<number | null>((r) => child.on('close', r));
        // Printed while /hold still holds the job: following, not a read after the end.
        await until('export to print the free pages', async () => out.split('\n').filter(Boolean).length >= PAGES + 1);
        assert.equal(child.exitCode, null, 'export --follow still running while the run goes on');
        site.release();
        await handle.result();
        const code = await closed;
        assert.equal(code, 0, err);
        const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { url: string });
        assert.equal(lines.length, PAGES + 2, out);
        assert.ok(lines.some((l) => l.url.endsWith('/hold')), 'the held page, stored at the end, was printed too');
      } finally {
        w.worker.shutdown();
        await w.done;
      }
    });
  });
});
