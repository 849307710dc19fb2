// Cancelling a run cleans up after itself, with stubbed activities: an open interact session is
// stopped, a running crawl job or agent job is cancelled on the service (once), and no job is
// cancelled that was not running. A stub holds the stage open until the test has cancelled the
// run, so the cancellation lands exactly there.
//
// Time is held still (a plain client, whose result() does not unlock time skipping): the
// time-skipping server otherwise jumps over the 10 s heartbeat timeout of a follower the test
// holds open, the attempt times out and is retried beside the cancellation, and the run hung in
// 2 of 5 runs. Held still, the follower is cancelled as a real one is: through its heartbeat.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { Stubs } from '../helpers/stub-activities.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { crawlInput, siteStubs, SITE, storeRef, summary } from './pipeline-stubs.js';

const HOUR = 3_600_000;

let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

/** A promise with its resolver, to hold a stub until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Starts the run, cancels it once `reached` opens, and expects it to end cancelled. */
async function cancelWhen(workflowId: string, input: PipelineInput, stubs: Stubs, reached: Promise<void>, release: () => void): Promise<void> {
  const client = new Client({ connection: wt.env.connection });
  await wt.with(stubs, async () => {
    const handle = await client.workflow.start<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [input] });
    try {
      await reached;
      await handle.cancel();
      const err = await handle.result().then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
    } finally {
      // The held activity ends (its late answer is dropped: the run is closed).
      release();
    }
  });
}

describe('cancellation', () => {
  test('during interact: the browser session is stopped, nothing else is cancelled', async () => {
    const inInteract = gate();
    const release = gate();
    const stubs = siteStubs({
      findStoredPages: () => [`${SITE}p1`],
      scrape: () => ({ scrapeId: 'scrape-1', url: `${SITE}p1`, statusCode: 200, creditsUsed: 1, stored: true, ref: storeRef('cancel-interact') }),
      interact: async (input) => {
        inInteract.open();
        await release.promise;
        return { url: input.url ?? '', scrapeId: input.scrapeId, success: true, exitCode: 0, killed: false, preview: '' };
      },
      stopInteraction: () => ({ stopped: true, creditsBilled: 1, sessionDurationMs: 10 }),
    });
    const input = crawlInput({ stages: { interact: true }, interact: { match: '/p', code: 'await page.click("#more")' } });
    await cancelWhen('cancel-interact', input, stubs, inInteract.promise, release.open);
    assert.deepEqual(stubs.inputs('stopInteraction'), [{ scrapeId: 'scrape-1' }]);
    assert.deepEqual(stubs.inputs('cancelJob'), []);
  });

  test('while the crawl job is followed: the job is cancelled on the service, once', async () => {
    const following = gate();
    const stubs = siteStubs({
      getJobSummary: (input) => summary('crawl', input.jobId, 'scraping'),
      // As the real follower: heartbeats, and returns its cursor when cancelled.
      followJob: async () => {
        const ctx = Context.current();
        following.open();
        const beat = setInterval(() => ctx.heartbeat(), 200);
        try {
          await ctx.cancelled.catch(() => undefined);
        } finally {
          clearInterval(beat);
        }
        return { kind: 'slice', cursor: { skip: 0, pages: 0, written: 0 } };
      },
    });
    const input = crawlInput({ polling: { minIntervalMs: HOUR, maxIntervalMs: HOUR } });
    await cancelWhen('cancel-crawl', input, stubs, following.promise, () => undefined);
    assert.deepEqual(stubs.inputs('cancelJob'), [{ kind: 'crawl', jobId: 'crawl-1' }]);
    assert.deepEqual(stubs.inputs('cancelAgent'), []);
  });

  test('while the agent job is polled: the agent job is cancelled on the service, once', async () => {
    const polled = gate();
    const stubs = siteStubs({
      startAgent: () => ({ id: 'agent-1' }),
      // Still running; the next read is an hour away (time held still), so the cancel lands in the wait.
      getAgent: (input) => {
        polled.open();
        return { id: input.id, status: 'processing', creditsUsed: 2, stored: false, ref: storeRef('cancel-agent', { jobId: input.id }) };
      },
      cancelAgent: () => ({ cancelled: true }),
    });
    const input = crawlInput({ agent: { prompt: 'Summarise the pricing page.' }, polling: { minIntervalMs: HOUR, maxIntervalMs: HOUR } });
    await cancelWhen('cancel-agent', input, stubs, polled.promise, () => undefined);
    assert.deepEqual(stubs.inputs('cancelAgent'), [{ id: 'agent-1' }]);
    assert.deepEqual(stubs.inputs('getAgent').map((i) => i.id), ['agent-1']);
    assert.deepEqual(stubs.inputs('cancelJob'), []);
  });
});
