// The run's tail, with stubbed activities on the time-skipping test server: once the follower's
// call that stored the job's last page completes, a crawl-only run without a tenant ends in at
// most one workflow task and schedules no activity, also when the crawl ended short of its limit
// (the limit-cut check takes the team's credits from that call, not from an activity of its own).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { temporal } from '@temporalio/proto';
import type { FollowJobInput } from '../../src/activities/types.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { collected, crawlInput, siteStubs, summary } from './pipeline-stubs.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let wt: WorkflowTests;

/** What follows the completion of the last followJob call: workflow tasks and activities scheduled, and how the run ended. */
function tailOf(events: HistoryEvent[]): { workflowTasks: number; activities: string[]; last: HistoryEvent | undefined } {
  const types = new Map<string, string>();
  let lastFollow = -1;
  events.forEach((e, i) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(String(e.eventId), scheduled.activityType?.name ?? '?');
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && types.get(String(completed.scheduledEventId)) === 'followJob') lastFollow = i;
  });
  assert.ok(lastFollow >= 0, 'no followJob completed');
  const after = events.slice(lastFollow + 1);
  return {
    workflowTasks: after.filter((e) => e.workflowTaskScheduledEventAttributes).length,
    activities: after.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name ?? '?'] : [])),
    last: events.at(-1),
  };
}

/** A crawl of `pages` pages whose follower answers as the activity does: the team's credits read when the job ended short of its limit. */
function shortCrawl(pages: number, creditsLeft: number | undefined) {
  const followed = (i: FollowJobInput) => ({
    ...collected(i.kind, i.jobId, i.runId, pages),
    ...(creditsLeft !== undefined && i.limitCut && pages < i.limitCut.requested ? { teamCreditsLeft: creditsLeft } : {}),
  });
  return siteStubs({
    getJobSummary: (i) => summary(i.kind, i.jobId, 'completed', pages),
    followJob: (i) => ({ kind: 'done', summary: summary(i.kind, i.jobId, 'completed', pages), collected: followed(i) }),
    // The read the workflow made itself before (and still makes when the collector has no answer).
    getCreditUsage: () => ({ remainingCredits: creditsLeft ?? 0, planCredits: 500, billingPeriodStart: null, billingPeriodEnd: null }),
  });
}

async function run(workflowId: string, stubs: ReturnType<typeof siteStubs>) {
  return wt.with(stubs, async () => {
    const result = await wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [crawlInput()] });
    const history = await wt.env.client.workflow.getHandle(workflowId).fetchHistory();
    return { result, tail: tailOf(history.events ?? []) };
  });
}

function assertShortTail(tail: ReturnType<typeof tailOf>): void {
  assert.deepEqual(tail.activities, [], 'no activity after the last page is stored');
  assert.ok(tail.workflowTasks <= 1, `${tail.workflowTasks} workflow tasks after the last page is stored`);
  assert.ok(tail.last?.workflowExecutionCompletedEventAttributes, 'the run completed');
}

describe('the tail: from the last page stored to the run\'s result', () => {
  before(async () => {
    wt = await startWorkflowTests();
  });
  after(async () => {
    await wt?.teardown();
  });

  test('a crawl that reached its limit: one workflow task, no activity', async () => {
    const stubs = siteStubs({});
    const { result, tail } = await run('tail-reached', stubs);
    assert.equal(result.status, 'completed');
    assertShortTail(tail);
  });

  test('a crawl short of its limit with credits left: one workflow task, no activity, completed as before', async () => {
    const stubs = shortCrawl(2, 40);
    const { result, tail } = await run('tail-short', stubs);
    assert.equal(result.status, 'completed');
    assert.equal(result.stages.crawl?.notes, undefined);
    assert.equal(stubs.inputs('getCreditUsage').length, 0, 'the team\'s credits came from the collector');
    assert.deepEqual(stubs.inputs('followJob')[0]?.limitCut, { requested: 3 });
    assertShortTail(tail);
  });

  test('a crawl cut at the team\'s credits: the same report as the workflow\'s own read gave, without its activity', async () => {
    const stubs = shortCrawl(2, 0);
    const { result, tail } = await run('tail-cut', stubs);
    assertShortTail(tail);
    assert.equal(stubs.inputs('getCreditUsage').length, 0);
    // A collector without the answer (its read failed): the workflow reads the credits itself.
    const fallback = shortCrawl(2, undefined);
    const { result: read, tail: readTail } = await run('tail-cut-read', fallback);
    assert.deepEqual(readTail.activities, ['getCreditUsage']);
    assert.equal(result.status, 'partial');
    assert.equal(read.status, 'partial');
    // Each run stores under its own id: the rest of the stage's report is the same.
    assert.deepEqual({ ...result.stages.crawl, ref: undefined }, { ...read.stages.crawl, ref: undefined });
    assert.deepEqual(result.credits, read.credits);
    assert.ok(result.stages.crawl?.notes?.includes('cut at the team\'s credits: 2 of 3 pages'));
  });
});
