// A job lost mid-crawl on the real stack (Temporal dev server, local service, demo site, store),
// and a run cancelled mid-crawl: the figures of both against the service's own bills and the
// store. The loss is made deterministic by a proxy in front of the service: the worker sees the
// first crawl's results up to LOST_AFTER pages (the job running), and from the follower's read
// past them every request about that job answers 404 "Job not found", as after a restart of a
// service that keeps its jobs in memory. The service itself still knows the job, so the test
// can read what it billed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { progressQuery } from '../../src/workflows/definitions.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { recordHistory } from '../helpers/histories.js';
import { startProxiedWorker, startServiceProxy, type ProxiedRequest, type ServiceProxy } from '../helpers/service-proxy.js';
import { startStack, storedUrls } from '../helpers/stack.js';

const TASK_QUEUE = 'lost-job';
const LOST_AFTER = 6;
const LIMIT = 20;

let stack: DevStack;
let proxy: ServiceProxy;
let worker: { stop(): Promise<void> };

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('lost-job', () => {
  before(async () => {
    stack = await startStack({ worker: false });
    proxy = await startServiceProxy(stack.service.url);
    worker = await startProxiedWorker(stack, proxy, TASK_QUEUE);
  });
  after(async () => {
    await worker?.stop();
    await proxy?.close();
    await stack?.close();
  });

  const JOB_NOT_FOUND = { status: 404, body: JSON.stringify({ success: false, error: 'Job not found' }) };

  /** The crawl job a request is about (`/v2/crawl/<id>`, `/v2/crawl/<id>/errors`), if any. */
  function crawlJobOf(req: ProxiedRequest): string | undefined {
    return /^\/v2\/crawl\/([0-9a-f-]{36})(?:[/?]|$)/i.exec(req.path)?.[1];
  }

  /**
   * The first crawl job seen is shown running with at most `after` results; the first read past
   * them (the follower has stored them all) loses it: 404 from then on.
   */
  function loseFirstCrawl(after: number): { lostJob(): string | undefined } {
    let first: string | undefined;
    let lost = false;
    proxy.intercept = async (req) => {
      const id = crawlJobOf(req);
      if (!id) return undefined;
      first ??= id;
      if (id !== first) return undefined;
      if (lost) return JOB_NOT_FOUND;
      const url = new URL(req.path, proxy.url);
      if (req.method !== 'GET' || url.pathname !== `/v2/crawl/${id}`) return undefined;
      const skip = Number(url.searchParams.get('skip') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 100);
      if (skip >= after) {
        lost = true;
        return JOB_NOT_FOUND;
      }
      url.searchParams.set('limit', String(Math.min(limit, after - skip)));
      const upstream = await fetch(`${stack.service.url}${url.pathname}${url.search}`, { headers: { authorization: String(req.headers.authorization) } });
      const body = (await upstream.json()) as { status: string; data?: unknown[]; next?: string | null; completed?: number };
      const shown = body.data?.length ?? 0;
      body.status = 'scraping';
      body.completed = Math.min(body.completed ?? 0, after);
      body.next = shown > 0 ? `${proxy.url}/v2/crawl/${id}?skip=${skip + shown}&limit=${limit}` : null;
      return { status: upstream.status, body: JSON.stringify(body) };
    };
    return { lostJob: () => first };
  }

  function crawlInput(limit: number): PipelineInput {
    return { url: `${stack.service.siteUrl}/`, stages: { map: false, select: false, batch: false, interact: false, support: false }, crawl: { limit } };
  }

  /** What the service billed a crawl job (it still knows every job: only the proxy forgot one). */
  async function billed(jobId: string): Promise<number> {
    return (await stack.api.getCrawlStatus(jobId, { skip: 0, limit: 1 })).creditsUsed ?? 0;
  }

  async function storedCount(runId: string, jobId?: string): Promise<number> {
    return (await stack.store.count(runId, jobId ? { jobId } : {})).documents;
  }

  describe('a lost job', () => {
    test('lost mid-crawl: one new crawl gets the rest, every page stored once, figures add up', { timeout: 600_000 }, async (t) => {
      const loss = loseFirstCrawl(LOST_AFTER);
      const id = `lost-${Date.now()}`;
      try {
        const handle = await startPipeline(stack.temporal.client, crawlInput(LIMIT), { taskQueue: TASK_QUEUE, workflowId: id });
        const result = await handle.result();
        const crawl = result.stages.crawl;
        const lostJob = loss.lostJob();
        assert.ok(lostJob);
        assert.equal(result.status, 'completed', JSON.stringify(crawl));
        assert.equal(crawl?.recovered?.lostJob, lostJob);
        const newJob = crawl?.recovered?.newJob;
        assert.ok(newJob && newJob !== lostJob);
        assert.equal(crawl?.jobId, newJob);

        // Every page once: no URL stored by both jobs, or twice by one.
        const urls = await storedUrls(stack, id);
        assert.equal(new Set(urls).size, urls.length, `duplicates: ${urls.join(' ')}`);
        // The lost job's pages up to the loss, the new job's the rest of the limit.
        assert.equal(await storedCount(id, lostJob), LOST_AFTER);
        assert.equal(crawl?.recovered?.lostPages, LOST_AFTER);
        assert.equal(crawl?.recovered?.pages, await storedCount(id, newJob));
        assert.equal(urls.length, LIMIT);

        // Documents: the store's, per stage and in total.
        assert.equal(crawl?.documents, await storedCount(id));
        assert.equal(result.documents, await storedCount(id));
        // Credits: the new job's as billed, the lost job's estimated (marked) and not above its bill.
        const estimate = crawl?.recovered?.lostCredits ?? -1;
        assert.equal(crawl?.credits, (await billed(newJob)) + estimate);
        assert.equal(result.credits.spent, crawl?.credits);
        assert.ok(estimate >= LOST_AFTER && estimate <= (await billed(lostJob)), `estimate ${estimate}, billed ${await billed(lostJob)}`);
        assert.equal(result.credits.estimated?.length, 1);
        assert.match(result.credits.estimated?.[0] ?? '', new RegExp(`^crawl: job ${lostJob} lost; ${estimate} credits estimated`));
        // The new crawl left the stored pages out (the start page stays: it is the way in).
        const [, recovery] = proxy.bodies('POST', '/v2/crawl') as Array<{ limit: number; excludePaths?: string[] }>;
        assert.equal(recovery.limit, LIMIT - LOST_AFTER + 1);
        assert.equal(recovery.excludePaths?.length, 1);
        t.diagnostic(`stored ${urls.length} (lost job ${LOST_AFTER}, new job ${crawl?.recovered?.pages}); credits ${result.credits.spent} = new job billed ${await billed(newJob)} + lost job estimated ${estimate} (billed ${await billed(lostJob)})`);
        await recordHistory(stack.temporal.client, id, 'lost-job-recovered');
      } finally {
        proxy.intercept = undefined;
      }
    });

    test('cancelled mid-crawl: the stage figures are the store and the service', { timeout: 600_000 }, async (t) => {
      const id = `cancel-${Date.now()}`;
      const handle = await startPipeline(stack.temporal.client, crawlInput(50), { taskQueue: TASK_QUEUE, workflowId: id });
      // Cancelled once pages are stored (whether the job ended meanwhile or not, the figures hold).
      for (let waited = 0; (await storedCount(id)) < 3; waited += 200) {
        assert.ok(waited < 300_000, 'no page stored within 5 minutes');
        await new Promise((r) => setTimeout(r, 200));
      }
      await handle.cancel();
      const err = await handle.result().then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
      const progress = await handle.query(progressQuery);
      const crawl = progress.stages.crawl;
      assert.equal(crawl?.status, 'cancelled');
      const jobId = crawl?.jobId;
      assert.ok(jobId);
      assert.equal(crawl?.documents, await storedCount(id));
      assert.equal(progress.documents, await storedCount(id));
      assert.equal(crawl?.credits, await billed(jobId));
      assert.equal(progress.credits.spent, await billed(jobId));
      assert.equal(progress.credits.estimated, undefined);
      t.diagnostic(`cancelled: ${crawl?.documents} documents stored, ${progress.credits.spent} credits billed`);
    });
  });
});
