// Issue 28 on the real stack (Temporal dev server, worker, local service, demo site): a batch
// the budget clamped takes the URLs left into the same job when the budget is raised
// (appendToId), and a crawl the service cut at the team's credits ends the run partial.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LocalService } from '../../packages/service/src/app.js';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { formatSummary } from '../../src/cli/summary.js';
import { getProgress, raiseBudget, startPipeline } from '../../src/client/pipeline.js';
import { OUTCOME } from '../../src/search-attributes.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { recordHistory } from '../helpers/histories.js';
import { jobsStarted, startStack, storedUrls } from '../helpers/stack.js';

/** Polls until `check` holds; the generous deadline only catches what never happens. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 250))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

let stack: DevStack;
let site: string;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('batch-append', () => {
  before(async () => {
    stack = await startStack();
    site = stack.service.siteUrl as string;
  });
  after(async () => {
    await stack?.close();
  });

  describe('issue 28 on the local service', () => {
    test('a budget raise appends the URLs left to the clamped batch: one job id, every page stored once', async () => {
      const since = Date.now();
      const input: PipelineInput = {
        url: `${site}/`,
        mode: 'batch',
        select: { include: ['^/docs'] },
        // 1 map credit leaves 3: the batch is clamped to 3 URLs; the run waits (10 min) for a raise.
        budget: { credits: 4, waitForRaiseMs: 600_000 },
        stages: { interact: false },
        webhookUrl: stack.webhook.url,
      };
      const handle = await startPipeline(stack.temporal.client, input, { taskQueue: stack.taskQueue, workflowId: `append-${Date.now()}` });
      await until('the batch to be clamped', async () =>
        (await getProgress(stack.temporal.client, handle.workflowId).catch(() => undefined))?.credits.events.some((e) => e.startsWith('batch: URLs clamped')) === true);
      assert.deepEqual(await raiseBudget(stack.temporal.client, handle.workflowId, 100), { budget: 104 });
      const result = await handle.result();

      const batch = result.stages.batch;
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      const urls = batch?.urls ?? 0;
      assert.ok(urls > 3, `the selection has more than the 3 URLs that fitted (${urls})`);
      assert.equal(batch?.jobId, result.jobs['batch#1']);
      assert.equal(result.jobs['batch+append#1'], batch?.jobId, JSON.stringify(result.jobs));
      assert.ok(result.credits.events.includes(`batch: ${urls - 3} URLs appended to job ${batch?.jobId} (budget raised)`), result.credits.events.join('; '));
      // One batch job on the service, grown to every URL; each page stored once.
      assert.deepEqual(await jobsStarted(stack, 'batch_scrape', since), [batch?.jobId]);
      assert.equal((await stack.api.getBatchScrapeStatus(batch?.jobId as string, { skip: 0, limit: 1 })).total, urls);
      const stored = await storedUrls(stack, result.runId, ['batch']);
      assert.equal(stored.length, urls);
      assert.equal(new Set(stored).size, urls);
      assert.equal(batch?.documents, urls);
      assert.equal(result.credits.spent, 1 + urls, 'map, then one credit a page, the first 3 counted once');
      // 'batch-append' (kept) was recorded before the appended job's follower went on from its
      // cursor (patch batch-append-follows-on); this run records the path with the patch.
      await recordHistory(stack.temporal.client, handle.workflowId, 'batch-append-follows-on');
    });

    test('a crawl cut at the team\'s credits without an error: a credits event, the summary line, the run partial', async () => {
      // Leave the team 6 credits: map takes 1, the service cuts the crawl's limit of 20 to 5.
      const ctx = (stack.service.handle as unknown as LocalService).context;
      const team = ctx.teams.all()[0];
      ctx.ledger.charge({ teamId: team.id, apiKey: stack.service.apiKey, credits: ctx.ledger.remaining(team.id) - 6, reason: 'test: drain' });
      const input: PipelineInput = { url: `${site}/`, crawl: { limit: 20 }, stages: { batch: false, interact: false }, webhookUrl: stack.webhook.url };
      const handle = await startPipeline(stack.temporal.client, input, { taskQueue: stack.taskQueue, workflowId: `cut-${Date.now()}` });
      const result = await handle.result();

      assert.equal(result.status, 'partial', JSON.stringify(result.stages));
      assert.equal(result.stages.crawl?.status, 'completed');
      assert.equal(result.stages.crawl?.documents, 5);
      const event = 'crawl: 5 of 20 pages, the team\'s credits ran out (0 left): the service cut the job without an error';
      assert.ok(result.credits.events.includes(event), result.credits.events.join('; '));
      const summary = formatSummary(result, { workflowId: handle.workflowId });
      assert.match(summary, /: partial · 5 documents/);
      assert.ok(summary.includes(`budget: ${event}`), summary);
      const description = await handle.describe();
      assert.equal(description.typedSearchAttributes.get(OUTCOME), 'partial');
      // The follower read the team's credits as it stored the last page: no activity of the
      // workflow's own after it. 'limit-cut' (kept) was recorded when the workflow read them
      // itself (before patch limit-cut-credits-from-collector); this run records the path with it.
      const history = await handle.fetchHistory();
      const activities = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
      assert.ok(!activities.includes('getCreditUsage'), activities.join(', '));
      await recordHistory(stack.temporal.client, handle.workflowId, 'limit-cut-from-collector');
    });
  });
});
