// The pipeline on the real stack with the local service imitating the open-source server
// (`imitate: 'firecrawl-oss'`): keyed crawl starts answer 500, batch errors, interact and support
// ask are HTML 404s, map links come without trailing slash. The run completes and says what the
// service lacked; credits count every stage.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DevStack } from '../../src/cli/dev-stack.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startParseDocuments } from '../../src/client/parse-documents.js';
import { getProgress, raiseBudget, startPipeline } from '../../src/client/pipeline.js';
import { runToEnd, startStack, storedUrls } from '../helpers/stack.js';

let stack: DevStack;
let site: string;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('oss-pipeline', () => {
  before(async () => {
    stack = await startStack({ serviceOptions: { config: { imitate: 'firecrawl-oss' } } });
    site = stack.service.siteUrl as string;
  });
  after(async () => {
    await stack?.close();
  });

  const base = (): PipelineInput => ({
    url: `${site}/`,
    select: { include: ['^/docs', '^/shop/catalog'] },
    crawl: { limit: 15, maxDiscoveryDepth: 2 },
    interact: { match: '/shop/catalog', code: '1 + 1', maxPages: 1 },
  });

  function sumByStage(byStage: Record<string, number | undefined>): number {
    return Object.values(byStage).reduce<number>((n, v) => n + (v ?? 0), 0);
  }

  describe('against an imitation of the open-source server', () => {
    test('completes; reports the refused idempotency key, the missing errors route and interact as not available', async () => {
      const { result } = await runToEnd(stack, base());
      const { crawl, batch, interact, support } = result.stages;
      assert.notEqual(result.status, 'failed', JSON.stringify(result.stages));
      assert.equal(crawl?.status, 'completed', JSON.stringify(crawl));
      assert.ok(crawl?.notes?.some((n) => /without idempotency key/.test(n)), JSON.stringify(crawl));
      if (batch?.status !== 'skipped') {
        assert.equal(batch?.status, 'completed', JSON.stringify(batch));
        assert.deepEqual(batch?.notAvailable, ['batch scrape errors']);
      }
      assert.equal(interact?.status, 'skipped', JSON.stringify(interact));
      assert.match(interact?.reason ?? '', /not available on this service/);
      assert.notEqual(support?.status, 'completed');
      assert.equal(result.credits.spent, sumByStage(result.credits.byStage));
      const stageCredits = Object.values(result.stages).reduce((n, r) => n + (r?.credits ?? 0), 0);
      assert.equal(result.credits.spent, stageCredits, JSON.stringify(result.credits));
    });

    test('streaming collection sees the service ignores skip and collects once at the end, never page after page', async () => {
      // A paced crawl (one page every 2 s) is still running when the follower first reads it.
      const { id, result } = await runToEnd(stack, { url: `${site}/`, stages: { map: false, select: false, batch: false, interact: false }, crawl: { limit: 4, delay: 2 } });
      const { crawl } = result.stages;
      assert.equal(crawl?.status, 'completed', JSON.stringify(crawl));
      assert.equal(crawl?.documents, 4, JSON.stringify(crawl));
      const history = await stack.temporal.client.workflow.getHandle(id).fetchHistory();
      const scheduled = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
      assert.equal(scheduled.filter((n) => n === 'followJob').length, 1, scheduled.join(' '));
      const collects = scheduled.filter((n) => n === 'collectCrawl').length;
      if (collects > 0) assert.ok(crawl?.notes?.some((n) => /ignores skip/.test(n)), JSON.stringify(crawl));
      assert.ok(collects <= 1, scheduled.join(' '));
    });

    test('a failed stage: support ask is skipped as not available, never completed, asked once', async () => {
      const { result } = await runToEnd(stack, { ...base(), stages: { interact: false }, crawl: { includePaths: ['^/documentation'], limit: 10 } });
      const { crawl, support } = result.stages;
      assert.equal(crawl?.status, 'failed', JSON.stringify(result.stages));
      assert.equal(support?.status, 'skipped', JSON.stringify(support));
      assert.match(support?.reason ?? '', /not available on this service/);
      assert.deepEqual(support?.notAvailable, ['support ask']);
      assert.match(crawl?.support?.answer ?? '', /not available/);
    });

    test('the agent stage is skipped as not available (no agent route), the run completes', async () => {
      const { result } = await runToEnd(stack, {
        url: `${site}/docs`,
        stages: { map: false, select: false, batch: false, interact: false },
        crawl: { limit: 2 },
        agent: { prompt: 'What do these pages say?', match: '/docs', maxCredits: 10 },
        budget: { credits: 20 },
        // The agent start asks for webhook events too: still a typed "not available" there.
        webhookUrl: stack.webhook.url,
      });
      const { agent } = result.stages;
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      assert.equal(agent?.status, 'skipped', JSON.stringify(agent));
      assert.match(agent?.reason ?? '', /^not available on this service: /);
      assert.deepEqual(agent?.notAvailable, ['agent']);
      assert.equal(agent?.credits, 0);
      assert.equal(result.credits.byStage.agent, undefined);
    });

    test('parseDocuments: no parse route, so no file is parsed or recorded as failed; all are skipped with the reason', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'webdata-oss-parse-'));
      try {
        const files = await Promise.all(['a.txt', 'b.txt', 'c.txt'].map(async (name) => {
          const path = join(dir, name);
          await writeFile(path, `file ${name}\n`);
          return path;
        }));
        const handle = await startParseDocuments(stack.temporal.client, { files, concurrency: 1 }, { taskQueue: stack.taskQueue, workflowId: `oss-parse-${Date.now()}` });
        const result = await handle.result();
        assert.equal(result.status, 'failed');
        assert.equal(result.done, 0);
        assert.equal(result.failed, 0);
        assert.equal(result.skipped, 3);
        assert.match(result.reason ?? '', /^parse is not available on this service: /);
        assert.equal((await stack.store.count(result.runId)).failures, 0);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('a budget raise appends to the clamped batch there too (that server has appendToId), each page stored once', async () => {
      const input: PipelineInput = { url: `${site}/`, mode: 'batch', select: { include: ['^/docs'] }, budget: { credits: 4, waitForRaiseMs: 600_000 }, stages: { interact: false } };
      const handle = await startPipeline(stack.temporal.client, input, { taskQueue: stack.taskQueue, workflowId: `oss-append-${Date.now()}` });
      for (const deadline = Date.now() + 300_000; ; await new Promise((r) => setTimeout(r, 250))) {
        const progress = await getProgress(stack.temporal.client, handle.workflowId).catch(() => undefined);
        if (progress?.credits.events.some((e) => e.startsWith('batch: URLs clamped'))) break;
        if (Date.now() > deadline) throw new Error('the batch was never clamped');
      }
      await raiseBudget(stack.temporal.client, handle.workflowId, 100);
      const result = await handle.result();
      const batch = result.stages.batch;
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      assert.equal(result.jobs['batch+append#1'], batch?.jobId, JSON.stringify(result.jobs));
      const stored = await storedUrls(stack, result.runId, ['batch']);
      assert.equal(stored.length, batch?.urls);
      assert.equal(new Set(stored).size, stored.length);
    });
  });
});
