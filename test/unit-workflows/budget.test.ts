// The credit budget's branches with stubbed activities on the time-skipping test server: a stage
// that does not fit waits for raiseBudget (and runs when it comes), is skipped when the wait
// ends without one (the wait's timer skipped, not waited), a tenant's budget change wakes it, and
// a crawl is clamped to what fits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { raiseBudgetUpdate, tenantBudgetChangedSignal } from '../../src/workflows/definitions.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { crawlInput, siteStubs } from './pipeline-stubs.js';

const HOUR = 3_600_000;

async function waitFor(check: () => Promise<boolean>, deadlineMs = 120_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting for the workflow to reach its wait');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

describe('budget', () => {
  test('nothing fits: the run waits for raiseBudget, then map runs with the raised budget', async () => {
    const stubs = siteStubs();
    const result = await wt.with(stubs, async () => {
      const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'budget-raise',
        args: [crawlInput({ budget: { credits: 0, waitForRaiseMs: HOUR } })],
      });
      // Time stays still until result() is awaited, so the wait cannot time out before the raise.
      const raised = await handle.executeUpdate(raiseBudgetUpdate, { args: [{ credits: 10 }] });
      assert.deepEqual(raised, { budget: 10 });
      return handle.result();
    });
    assert.equal(result.status, 'completed');
    assert.equal(stubs.inputs('mapToStore').length, 1);
    assert.equal(result.stages.map?.status, 'completed');
    assert.ok(result.credits.events.includes('budget raised by 10 to 10'), result.credits.events.join('; '));
    // 1 map credit + 3 crawl pages: the crawl's limit (3 selected URLs) fitted in the 9 left.
    assert.equal(result.credits.spent, 4);
  });

  test("the UI's stack trace of a waiting run names its wait point, in frames of at most four (workflows/preload.ts)", async () => {
    const stubs = siteStubs();
    const result = await wt.with(stubs, async () => {
      const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'budget-stack-trace',
        args: [crawlInput({ budget: { credits: 0, waitForRaiseMs: HOUR } })],
      });
      // Time stays still until result() is awaited: the run is in its wait for a raise.
      let trace = '';
      await waitFor(async () => (trace = await handle.query<string>('__stack_trace')).includes('creditsAvailable'));
      // One stack per pending promise, blank-line separated; the SDK's hook takes one or two of the
      // four frames (two when V8 creates the promise for a `then`).
      const stacks = trace.split('\n\n').map((stack) => stack.split('\n').filter((line) => line.trim().startsWith('at ')));
      assert.ok(stacks.some((lines) => lines.some((line) => line.includes('budget.ts'))), trace);
      assert.ok(stacks.every((lines) => lines.length <= 3), trace);
      await handle.executeUpdate(raiseBudgetUpdate, { args: [{ credits: 10 }] });
      return handle.result();
    });
    assert.equal(result.status, 'completed');
  });

  test('a raise that is not enough waits for the next one instead of re-reading credits in a loop', async () => {
    // The month's cap is spent, so raising the run's own budget frees nothing. Before the fix the
    // wait re-read the cap at once after every raise; here the 20th read frees the cap, so a loop
    // would run map, while a wait for the next raise lets the hour pass and skips map.
    let reads = 0;
    const stubs = siteStubs({
      creditSnapshot: () => ({ remainingCredits: 1_000, usedThisMonth: ++reads >= 20 ? 0 : 5 }),
    });
    const result = await wt.with(stubs, async () => {
      const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'budget-raise-not-enough',
        args: [crawlInput({ budget: { credits: 0, monthlyCap: 5, waitForRaiseMs: HOUR } })],
      });
      // Raise only once the wait has begun (its timer is in the history; time stays still until
      // result() is awaited), so the raise wakes a waiting run rather than landing before it.
      await waitFor(async () => (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes) === true);
      await handle.executeUpdate(raiseBudgetUpdate, { args: [{ credits: 10 }] });
      return handle.result();
    });
    assert.equal(result.stages.map?.status, 'skipped');
    assert.equal(stubs.inputs('mapToStore').length, 0);
    assert.ok(reads <= 3, `the cap was read ${reads} times`);
  });

  test('a tenant with nothing left: tenantBudgetChanged wakes the wait at once, without its periodic look', async () => {
    let raised = false;
    const usage = (left: number) => ({ tenant: 'acme', month: '2026-11', budget: left, used: 0, held: 0, left });
    const stubs = siteStubs({
      tenantCredits: () => usage(raised ? 100 : 0),
      acquireTenantSlot: () => ({ granted: true, runsInFlight: 1, limit: null, usage: usage(raised ? 100 : 0) }),
      releaseTenantSlot: () => undefined,
      reserveTenantCredits: () => ({ granted: true, left: 100 }),
      settleTenantCredits: () => usage(100),
    });
    const result = await wt.with(stubs, async () => {
      const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'budget-tenant-signal',
        args: [crawlInput({ tenant: 'acme', budget: { credits: 1_000, waitForRaiseMs: HOUR } })],
      });
      await waitFor(async () => (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes) === true);
      raised = true;
      await handle.signal(tenantBudgetChangedSignal);
      // Time stays still (the real-time client's result() does not unlock it): the 30 s look at
      // the ledger cannot fire, so only the signal can have woken the wait.
      await waitFor(async () => stubs.inputs('mapToStore').length > 0);
      return wt.realTime.workflow.result<typeof webDataPipeline>(handle.workflowId);
    });
    assert.equal(result.stages.map?.status, 'completed');
    assert.equal(result.status, 'completed');
  });

  test('a tenant run reads its ledger once per stage: the read that finds credits also sizes the job', async () => {
    const usage = { tenant: 'acme', month: '2026-11', budget: 1_000, used: 0, held: 0, left: 1_000 };
    const stubs = siteStubs({
      tenantCredits: () => usage,
      acquireTenantSlot: () => ({ granted: true, runsInFlight: 1, limit: null, usage }),
      releaseTenantSlot: () => undefined,
      reserveTenantCredits: () => ({ granted: true, left: 1_000 }),
      settleTenantCredits: () => usage,
    });
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'budget-tenant-one-read',
        args: [crawlInput({ tenant: 'acme' })],
      }));
    assert.equal(result.status, 'completed');
    // map checks one read (which also takes the run's slot of its tenant's runs in flight); the
    // crawl reads once, then reserves its worst case. Before, the crawl read the ledger twice
    // (once to find credits, once more to size the job).
    assert.equal(stubs.inputs('acquireTenantSlot').length, 1, stubs.names().join(', '));
    assert.equal(stubs.inputs('tenantCredits').length, 1, stubs.names().join(', '));
    assert.equal(stubs.inputs('releaseTenantSlot').length, 1, 'the slot given back at the end');
    assert.equal(stubs.inputs('reserveTenantCredits').length, 1);
    assert.equal(stubs.inputs('startCrawl').length, 1);
  });

  test('no raise within waitForRaiseMs: map is skipped for budget, nothing else is started', async () => {
    const stubs = siteStubs();
    const before = await wt.env.currentTimeMs();
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'budget-skip',
        args: [crawlInput({ budget: { credits: 0, waitForRaiseMs: HOUR } })],
      }));
    assert.equal(result.stages.map?.status, 'skipped');
    assert.equal(result.stages.map?.reason, 'budget: no credits left for map');
    assert.equal(result.stages.select?.reason, 'needs the map stage');
    assert.deepEqual(stubs.names().filter((n) => n !== 'cancelJob'), []);
    // The hour-long wait was skipped by the test server, not waited for.
    assert.ok((await wt.env.currentTimeMs()) - before >= HOUR);
  });

  test('the crawl limit is clamped to the credits left after map', async () => {
    const stubs = siteStubs();
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'budget-clamp',
        args: [crawlInput({ budget: { credits: 3 }, crawl: { limit: 50 } })],
      }));
    const [start] = stubs.inputs('startCrawl');
    assert.equal(start.body.limit, 2);
    assert.ok(result.credits.events.includes('crawl: limit clamped from 50 to 2 (budget)'), result.credits.events.join('; '));
    assert.equal(result.stages.crawl?.status, 'completed');
  });

  test('no budget left for the crawl: skipped before any job starts', async () => {
    const stubs = siteStubs();
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'budget-crawl-skip',
        args: [crawlInput({ budget: { credits: 1 } })],
      }));
    assert.equal(result.stages.crawl?.status, 'skipped');
    assert.match(result.stages.crawl?.reason ?? '', /^budget: /);
    assert.equal(stubs.inputs('startCrawl').length, 0);
  });
});
