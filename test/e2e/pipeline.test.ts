// The pipeline end to end on the real stack: Temporal dev server, worker, local service,
// demo site, webhook receiver and a filesystem store.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { getProgress, raiseBudget, startPipeline, cancelPipeline } from '../../src/client/pipeline.js';
import { deleteSchedule, schedulePipeline } from '../../src/client/schedules.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { LocalService } from '../../packages/service/src/app.js';
import { browserSessions } from '../../packages/service/src/browser/session-manager.js';
import { recordHistory } from '../helpers/histories.js';
import { jobsStarted, runToEnd, startStack, storedUrls } from '../helpers/stack.js';

/** Polls until `check` holds; the generous deadline only catches what never happens. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 250))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

let stack: DevStack;
let site: string;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('pipeline', () => {
  before(async () => {
    stack = await startStack();
    site = stack.service.siteUrl as string;
  });
  after(async () => {
    await stack?.close();
  });

  const base = (): PipelineInput => ({
    url: `${site}/`,
    select: { include: ['^/docs', '^/shop/catalog'] },
    crawl: { limit: 15, maxDiscoveryDepth: 2 },
    interact: { match: '/shop/catalog', code: "await page.click('#load-more'); await page.waitForFunction(() => document.querySelectorAll('#catalog-items li').length > 10); await page.$$eval('#catalog-items li', (li) => li.length)", maxPages: 1 },
    webhookUrl: stack.webhook.url,
  });

  describe('the full chain', () => {
    test('map → select → crawl → batch → interact: every page stored once, one crawl and one batch job', async () => {
      const since = Date.now();
      const { id, result } = await runToEnd(stack, base());
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      const { map, select, crawl, batch, interact } = result.stages;
      assert.equal(map?.status, 'completed');
      assert.ok((map?.urls ?? 0) >= 60, `map found ${map?.urls}`);
      assert.equal(select?.status, 'completed');
      assert.equal(crawl?.status, 'completed');
      // limit counts unique pages; /docs/broken-page (500) is a crawl document with its statusCode,
      // as on the open-source server (the pipeline also reports it among its failures).
      assert.equal(crawl?.documents, 15, JSON.stringify(crawl));
      assert.equal(batch?.status, 'completed');
      const selected = new Set<string>();
      for await (const link of stack.store.readLinks(id, 'selected')) selected.add(link.url);
      const crawled = new Set<string>();
      for await (const doc of stack.store.readDocuments(id, { jobId: crawl?.jobId })) crawled.add(doc.url);
      const missed = [...selected].filter((u) => !crawled.has(u));
      assert.equal(batch?.urls, missed.length, 'batch took exactly what the crawl missed');
      const batched = new Set<string>();
      for await (const doc of stack.store.readDocuments(id, { jobId: batch?.jobId })) batched.add(doc.url);
      assert.deepEqual([...batched].sort(), missed.sort());
      assert.equal(batch?.documents, batch?.urls, 'batch returns error pages as documents');
      assert.equal(interact?.status, 'completed');
      assert.equal(interact?.documents, 1);

      const pages = await storedUrls(stack, id);
      assert.equal(new Set(pages).size, pages.length, 'a page was stored twice');
      assert.deepEqual(await jobsStarted(stack, 'crawl', since), [crawl?.jobId]);
      assert.deepEqual(await jobsStarted(stack, 'batch_scrape', since), [batch?.jobId]);
      assert.equal(result.credits.spent, Object.values(result.credits.byStage).reduce((a, b) => a + (b ?? 0), 0));

      const progress = await getProgress(stack.temporal.client, id);
      assert.equal(progress.status, 'completed');
      await recordHistory(stack.temporal.client, id, 'success');
    });

    test('a failed crawl is repaired through support ask and retried once', async () => {
      const { id, result } = await runToEnd(stack, {
        ...base(),
        stages: { interact: false },
        // Matches no page, not even the start URL: the crawl returns nothing.
        crawl: { includePaths: ['^/documentation'], limit: 10 },
      });
      const crawl = result.stages.crawl;
      assert.equal(crawl?.status, 'repaired', JSON.stringify(result.stages));
      assert.equal(crawl?.support?.applied, true);
      assert.ok(crawl?.support?.fixParameters && 'includePaths' in crawl.support.fixParameters, JSON.stringify(crawl?.support));
      assert.ok((crawl?.documents ?? 0) > 0);
      assert.equal(result.status, 'completed');
      await recordHistory(stack.temporal.client, id, 'failure-repaired');
    });

    // Each stage switched off (reported skipped, its activities not called, the run not failed):
    // test/unit-workflows/stage-switches.test.ts, with stubbed activities on the time-skipping server.
  });

  describe('credit guard', () => {
    // The crawl limit clamped to the budget: test/unit-workflows (stubbed activities, time skipping).

    test('stop strategy cancels a running job at the budget', async () => {
      // The service runs in this process. Every crawl page that starts once the crawl has been
      // charged the budget is held until the job is cancelled (its signal aborts), so the job
      // reaches the budget, then cannot spend more, however late the workflow's poll comes:
      // the bound holds by construction, and only the budget watch can end the crawl early.
      const BUDGET = 6;
      const ctx = (stack.service.handle as unknown as LocalService).context;
      const { ledger, scrapeEngine: engine } = ctx;
      const charge = ledger.charge;
      let charged = 0;
      ledger.charge = (entry) => {
        if (entry.reason === 'crawl') charged += entry.credits;
        charge.call(ledger, entry);
      };
      // A guard that never cancels ends the hold after this generous deadline; the crawl then
      // runs past the budget and the assertions below say so (instead of a hung test).
      let giveUp: () => void = () => {};
      const gaveUp = new Promise<void>((r) => { giveUp = r; });
      const deadline = setTimeout(giveUp, 300_000);
      ctx.scrapeEngine = {
        async scrape(url, options, page) {
          if (charged >= BUDGET) {
            await new Promise<void>((resolve, reject) => {
              const onAbort = () => reject(new Error('aborted'));
              if (page.signal?.aborted) return onAbort();
              page.signal?.addEventListener('abort', onAbort, { once: true });
              void gaveUp.then(resolve);
            });
          }
          return engine.scrape(url, options, page);
        },
        close: () => engine.close(),
      };
      try {
        const { id, result } = await runToEnd(stack, {
          url: `${site}/docs`,
          stages: { map: false, select: false, batch: false, interact: false },
          crawl: { limit: 40, delay: 0.25 },
          budget: { credits: BUDGET, strategy: 'stop' },
          polling: { minIntervalMs: 200, maxIntervalMs: 1000 },
        });
        const crawl = result.stages.crawl;
        assert.equal(crawl?.documents, BUDGET, `crawl stored ${crawl?.documents}`);
        assert.match(crawl?.reason ?? '', /cancelled at the budget/);
        assert.ok(result.credits.events.some((e) => e.includes(`cancelled at ${BUDGET} credits (budget)`)), result.credits.events.join('; '));
        // Spending stops at the budget: the page in flight at the cancel was not billed.
        assert.equal(result.credits.spent, BUDGET, `spent ${result.credits.spent}`);
        assert.equal(charged, BUDGET, `the service charged ${charged}`);
        await recordHistory(stack.temporal.client, id, 'budget-stop');
      } finally {
        clearTimeout(deadline);
        giveUp();
        ctx.scrapeEngine = engine;
        ledger.charge = charge;
      }
    });

    test('waits for raiseBudget when nothing fits, then runs', async () => {
      const handle = await startPipeline(stack.temporal.client, {
        // Ten minutes to wait: the raise below comes long before, however slow the machine.
        ...base(), stages: { interact: false, batch: false }, budget: { credits: 0, waitForRaiseMs: 600_000 },
      }, { taskQueue: stack.taskQueue, workflowId: `raise-${Date.now()}` });
      // The run reaches map and stays there: nothing fits a budget of 0 (it cannot get further).
      await until('the run to reach map', async () => (await getProgress(stack.temporal.client, handle.workflowId).catch(() => undefined))?.stage === 'map');
      assert.equal((await getProgress(stack.temporal.client, handle.workflowId)).stage, 'map');
      // The validator refuses a bad update before it touches history.
      await assert.rejects(raiseBudget(stack.temporal.client, handle.workflowId, -5), (err: Error) => /positive integer/.test(String((err.cause as Error | undefined)?.message)));
      assert.deepEqual(await raiseBudget(stack.temporal.client, handle.workflowId, 100), { budget: 100 });
      const result = await handle.result();
      assert.equal(result.stages.map?.status, 'completed');
      assert.equal(result.stages.crawl?.status, 'completed');
      assert.ok(result.credits.spent <= 100);
    });
  });

  describe('webhooks and cancellation', () => {
    test('with every webhook lost the result is the same', async () => {
      const clean = await runToEnd(stack, { ...base(), stages: { interact: false } });
      stack.service.handle.faults.set('local', { webhookDropRate: 1 });
      try {
        const lossy = await runToEnd(stack, { ...base(), stages: { interact: false } });
        assert.equal(lossy.result.status, clean.result.status);
        assert.equal(lossy.result.documents, clean.result.documents);
        assert.deepEqual((await storedUrls(stack, lossy.id)).sort(), (await storedUrls(stack, clean.id)).sort());
      } finally {
        stack.service.handle.faults.set('local', undefined);
      }
    });

    test('a forged webhook is refused and never reaches the workflow', async () => {
      const body = JSON.stringify({ success: true, type: 'crawl.completed', id: crypto.randomUUID(), webhookId: crypto.randomUUID(), data: [], metadata: { workflowId: 'anything' } });
      const res = await request(stack.webhook.url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-service-signature': 'sha256=00' } });
      assert.equal(res.statusCode, 401);
      await res.body.dump();
    });

    test('cancelling a run stops its interact session and cancels nothing twice', async () => {
      const handle = await startPipeline(stack.temporal.client, {
        url: `${site}/shop/catalog`,
        stages: { map: false, select: false, batch: false },
        crawl: { limit: 1 },
        // The code outlasts any wait below: the cancel always comes while it runs.
        interact: { match: '/shop/catalog', code: 'await page.waitForTimeout(280000); 1', maxPages: 1, timeout: 300 },
      }, { taskQueue: stack.taskQueue, workflowId: `cancel-${Date.now()}` });
      // The service runs in this process: its session manager tells when the session is open.
      const manager = browserSessions((stack.service.handle as unknown as LocalService).context);
      await until('the interact stage with its session open', async () => {
        const p = await getProgress(stack.temporal.client, handle.workflowId).catch(() => undefined);
        return p?.stage === 'interact' && manager.list('local', 'interact', 'active').length > 0;
      });
      await cancelPipeline(stack.temporal.client, handle.workflowId);
      await assert.rejects(handle.result(), /cancel/i);
      const history = await handle.fetchHistory();
      const stops = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'stopInteraction');
      assert.equal(stops.length, 1, 'the session was not stopped exactly once');
      const completedStop = (history.events ?? []).some((e) => e.activityTaskCompletedEventAttributes && JSON.stringify(e).includes('stopped'));
      assert.ok(completedStop || stops.length === 1);
      const sessions = await stack.api.listBrowsers({ status: 'active' });
      assert.equal(sessions.sessions.length, 0, `active sessions left: ${JSON.stringify(sessions.sessions)}`);
      assert.deepEqual(manager.list('local', 'interact', 'active').map((x) => x.id), [], 'the interact session was left open');
      await recordHistory(stack.temporal.client, handle.workflowId, 'cancelled');
    });
  });

  describe('schedules', () => {
    test('a schedule fires twice', async () => {
      const scheduleId = `sched-${Date.now()}`;
      await schedulePipeline(stack.temporal.client, { url: `${site}/docs`, stages: { map: false, select: false, batch: false, interact: false }, crawl: { limit: 2 } }, {
        scheduleId, every: '3s', taskQueue: stack.taskQueue, overlap: 'allow_all',
      });
      try {
        let runs = 0;
        await until('two scheduled runs', async () => {
          runs = (await stack.temporal.client.schedule.getHandle(scheduleId).describe()).info.numActionsTaken;
          return runs >= 2;
        });
        assert.ok(runs >= 2, `schedule ran ${runs} times`);
      } finally {
        await deleteSchedule(stack.temporal.client, scheduleId);
      }
    });
  });
});
