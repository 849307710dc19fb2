// Cancelling a run cleans up after itself, with stubbed activities: an open interact session is
// stopped, a running crawl job or agent job is cancelled on the service (once), and no job is
// cancelled that was not running.
//
// The cancellation lands where nothing can finish beside it, by construction: the activity the
// test is about is held open until it is cancelled (as a real one is, through its heartbeat), and
// a run that polls is cancelled only once its history shows it asleep in the poll's timer. Two
// things made the earlier versions hang now and then on the time-skipping server: a cancel that
// crossed a completing activity (the server then refuses the run's cancel command with
// ACTIVITY_UNKNOWN and the run never ends), and skipped time (the time-skipping client's result()
// jumps over the heartbeat timeout of a held activity). So time is held still here: a plain
// client, and the hour-long poll interval never passes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { Stubs } from '../helpers/stub-activities.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { crawlInput, siteStubs, SITE, storeRef, summary } from './pipeline-stubs.js';

const HOUR = 3_600_000;
const polling = { minIntervalMs: HOUR, maxIntervalMs: HOUR };
/** How long a step may take on a loaded machine before the test says which one did not come. */
const DEADLINE_MS = 120_000;

let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

/** A promise with its resolver: the test waits on it until a stub opens it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** An activity body that opens `started`, then heartbeats until it is cancelled and answers `value`. */
async function heldUntilCancelled<T>(started: () => void, value: T): Promise<T> {
  const ctx = Context.current();
  started();
  const beat = setInterval(() => ctx.heartbeat(), 200);
  try {
    await ctx.cancelled.catch(() => undefined);
  } finally {
    clearInterval(beat);
  }
  return value;
}

/**
 * Resolves once the run's history shows a timer started after the last `activity` completed
 * (`scheduled`: after it was scheduled, for one still running beside the wait).
 */
async function asleepAfter(handle: WorkflowHandle, activity: string, on: 'completed' | 'scheduled' = 'completed'): Promise<void> {
  const until = Date.now() + DEADLINE_MS;
  for (;;) {
    const events = (await handle.fetchHistory()).events ?? [];
    const names = new Map<string, string>();
    let completedAt = -1;
    let timerAt = -1;
    events.forEach((e, i) => {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled) names.set(String(e.eventId), scheduled.activityType?.name ?? '');
      if (scheduled && on === 'scheduled' && scheduled.activityType?.name === activity) completedAt = i;
      const done = e.activityTaskCompletedEventAttributes;
      if (done && on === 'completed' && names.get(String(done.scheduledEventId)) === activity) completedAt = i;
      if (e.timerStartedEventAttributes) timerAt = i;
    });
    if (completedAt >= 0 && timerAt > completedAt) return;
    if (Date.now() > until) throw new Error(`no timer after ${activity} within ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the run, cancels it once `ready(handle)` resolves, and expects it to end cancelled. */
async function cancelWhen(workflowId: string, input: PipelineInput, stubs: Stubs, ready: (handle: WorkflowHandle) => Promise<void>): Promise<void> {
  // A plain client: awaiting the result does not unlock time skipping (see the top of the file).
  const client = new Client({ connection: wt.env.connection });
  await wt.with(stubs, async () => {
    const handle = await client.workflow.start<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [input] });
    await ready(handle);
    await handle.cancel();
    const err = await handle.result().then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
  });
}

describe('cancellation', () => {
  test('during interact: the browser session is stopped, nothing else is cancelled', async () => {
    const inInteract = gate();
    const stubs = siteStubs({
      findStoredPages: () => [`${SITE}p1`],
      scrape: () => ({ scrapeId: 'scrape-1', url: `${SITE}p1`, statusCode: 200, creditsUsed: 1, stored: true, ref: storeRef('cancel-interact') }),
      interact: (input) => heldUntilCancelled(inInteract.open, { url: input.url ?? '', scrapeId: input.scrapeId, success: true, exitCode: 0, killed: false, preview: '' }),
      stopInteraction: () => ({ stopped: true, creditsBilled: 1, sessionDurationMs: 10 }),
    });
    const input = crawlInput({ stages: { interact: true }, interact: { match: '/p', code: 'await page.click("#more")' } });
    await cancelWhen('cancel-interact', input, stubs, () => inInteract.promise);
    assert.deepEqual(stubs.inputs('stopInteraction'), [{ scrapeId: 'scrape-1' }]);
    assert.deepEqual(stubs.inputs('cancelJob'), []);
  });

  test('while the crawl job is followed: the job is cancelled on the service, once', async () => {
    const following = gate();
    const stubs = siteStubs({
      getJobSummary: (input) => summary('crawl', input.jobId, 'scraping'),
      // As the real follower: it hands back its cursor when cancelled.
      followJob: () => heldUntilCancelled(following.open, { kind: 'slice' as const, cursor: { skip: 0, pages: 0, written: 0 } }),
    });
    await cancelWhen('cancel-crawl', crawlInput({ polling }), stubs, async (handle) => {
      await following.promise;
      // The follower watches the job: the wait sleeps beside it without status reads of its own.
      await asleepAfter(handle, 'followJob', 'scheduled');
    });
    assert.deepEqual(stubs.inputs('cancelJob'), [{ kind: 'crawl', jobId: 'crawl-1' }]);
    assert.deepEqual(stubs.inputs('cancelAgent'), []);
  });

  test('while the agent job is polled: the agent job is cancelled on the service, once', async () => {
    const stubs = siteStubs({
      startAgent: () => ({ id: 'agent-1' }),
      getAgent: (input) => ({ id: input.id, status: 'processing', creditsUsed: 2, stored: false, ref: storeRef('cancel-agent', { jobId: input.id }) }),
      cancelAgent: () => ({ cancelled: true }),
    });
    const input = crawlInput({ agent: { prompt: 'Summarise the pricing page.' }, polling });
    await cancelWhen('cancel-agent', input, stubs, (handle) => asleepAfter(handle, 'getAgent'));
    assert.deepEqual(stubs.inputs('cancelAgent'), [{ id: 'agent-1' }]);
    assert.deepEqual(stubs.inputs('getAgent').map((i) => i.id), ['agent-1']);
    assert.deepEqual(stubs.inputs('cancelJob'), []);
  });
});
