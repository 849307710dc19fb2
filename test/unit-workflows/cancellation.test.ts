// Cancelling a run cleans up after itself, with stubbed activities: an open interact session is
// stopped, and no job is cancelled that was not running. The stub holds the stage open until the
// test has cancelled the run, so the cancellation lands exactly there. (Cancelling while a crawl
// or agent job is polled hung now and then on the time-skipping server; those stay full-stack.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { Stubs } from '../helpers/stub-activities.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { crawlInput, siteStubs, SITE, storeRef } from './pipeline-stubs.js';

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
  await wt.with(stubs, async () => {
    const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [input] });
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
});
