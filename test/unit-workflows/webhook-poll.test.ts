// Webhooks accelerate, polling guarantees (principle 4), with stubbed activities. The status
// poll is set to an hour, so only one of two things can end the wait for the crawl job: a
// jobEvent signal (time held still: the test's client does not skip time), or, without one,
// the poll's timer, which the time-skipping server fires at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@temporalio/client';
import { jobEventSignal } from '../../src/workflows/definitions.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { JobSummary } from '../../src/activities/types.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { collected, crawlInput, siteStubs, summary } from './pipeline-stubs.js';

const HOUR = 3_600_000;
let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

/** A crawl job whose first status read says scraping and every later one completed; collected at the end. */
function slowJob(firstRead: () => void) {
  let reads = 0;
  return siteStubs({
    getJobSummary: (input): JobSummary => {
      reads += 1;
      if (reads === 1) {
        firstRead();
        return summary('crawl', input.jobId, 'scraping');
      }
      return summary('crawl', input.jobId, 'completed');
    },
    // This service ignores skip: no follower beside the wait, one collection when the job ends.
    followJob: () => ({ kind: 'at-end', cursor: { skip: 0, pages: 0, written: 0 }, reason: 'ignores skip' }),
    collectCrawl: (input) => collected('crawl', input.jobId, input.runId),
  });
}

const input = crawlInput({ polling: { minIntervalMs: HOUR, maxIntervalMs: HOUR } });

describe('webhook then poll', () => {
  test('a completed event wakes the wait at once: one more status read, no timer fired', async () => {
    let readOnce!: () => void;
    const firstRead = new Promise<void>((resolve) => {
      readOnce = resolve;
    });
    const stubs = slowJob(() => readOnce());
    // A plain client: awaiting the result does not unlock time skipping, so the hour never passes.
    const client = new Client({ connection: wt.env.connection });
    const started = await wt.env.currentTimeMs();
    const result = await wt.with(stubs, async () => {
      const handle = await client.workflow.start<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'webhook-wakes', args: [input] });
      await firstRead;
      await handle.signal(jobEventSignal, { jobId: 'crawl-1', type: 'completed', webhookId: 'delivery-1' });
      return handle.result();
    });
    assert.equal(stubs.inputs('getJobSummary').length, 2);
    assert.equal(result.stages.crawl?.status, 'completed');
    assert.ok((await wt.env.currentTimeMs()) - started < HOUR);
  });

  test('no webhook: the safety poll reconciles after its interval (skipped, not waited)', async () => {
    const stubs = slowJob(() => undefined);
    const started = await wt.env.currentTimeMs();
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'poll-reconciles', args: [input] }));
    assert.equal(stubs.inputs('getJobSummary').length, 2);
    assert.equal(result.stages.crawl?.status, 'completed');
    assert.equal(result.stages.crawl?.documents, 3);
    assert.ok((await wt.env.currentTimeMs()) - started >= HOUR);
  });
});

describe('a followed job', () => {
  test('the follower watches the job: no status reads while it runs, its end ends the wait; a delivery alone reads nothing', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let following!: () => void;
    const followed = new Promise<void>((resolve) => {
      following = resolve;
    });
    const stubs = siteStubs({
      followJob: async (i) => {
        following();
        await released;
        return { kind: 'done', summary: summary(i.kind, i.jobId, 'completed'), collected: collected(i.kind, i.jobId, i.runId) };
      },
    });
    // A plain client: time stands still, so only the follower's end can end the wait.
    const client = new Client({ connection: wt.env.connection });
    const result = await wt.with(stubs, async () => {
      const handle = await client.workflow.start<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'follower-watches', args: [input] });
      await followed;
      await handle.signal(jobEventSignal, { jobId: 'crawl-1', type: 'completed', webhookId: 'delivery-watch' });
      release();
      return handle.result();
    });
    assert.equal(stubs.inputs('getJobSummary').length, 0);
    assert.equal(result.stages.crawl?.status, 'completed');
    assert.equal(result.stages.crawl?.documents, 3);
  });
});
