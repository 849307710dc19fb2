// The credit budget's branches with stubbed activities on the time-skipping test server: a stage
// that does not fit waits for raiseBudget (and runs when it comes), is skipped when the wait
// ends without one (the wait's timer skipped, not waited), and a crawl is clamped to what fits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { raiseBudgetUpdate } from '../../src/workflows/definitions.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { crawlInput, siteStubs } from './pipeline-stubs.js';

const HOUR = 3_600_000;
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
