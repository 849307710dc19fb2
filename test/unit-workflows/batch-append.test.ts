// A batch the budget clamped, with stubbed activities on the time-skipping test server: a raise
// during the run adds the URLs left to the same job (appendToId, one key per addition), a
// service without append gets a new job for them, and without a raise they stay unscraped.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppendBatchResult } from '../../src/activities/batch-append.js';
import { raiseBudgetUpdate } from '../../src/workflows/definitions.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { collected, crawlInput, SITE, siteStubs, storeRef, summary } from './pipeline-stubs.js';

const HOUR = 3_600_000;
let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

/** Batch mode, 3 URLs; 1 map credit leaves 2 of the 3 credits: the batch is clamped to 2 URLs. */
function input(): PipelineInput {
  return { url: SITE, mode: 'batch', budget: { credits: 3, waitForRaiseMs: HOUR }, stages: { interact: false } };
}

/** Jobs whose size grows with each append; `followed` resolves at the first follow (the clamp is done). */
function batchStubs(append: (jobId: string, urls: number) => AppendBatchResult) {
  const size = new Map<string, number>();
  let jobs = 0;
  let followed!: () => void;
  const firstFollow = new Promise<void>((resolve) => { followed = resolve; });
  const stubs = siteStubs({
    diffUrls: (i) => ({ count: 3, ref: storeRef(i.runId, { list: i.toList }), sample: [] }),
    filterRobots: (i) => ({ count: 3, skipped: 0, userAgent: 'test', ref: { runId: i.runId, list: i.toList }, skippedRef: { runId: i.runId }, sample: [], skippedSample: [] }),
    startBatchScrape: (i) => {
      const jobId = `batch-${++jobs}`;
      size.set(jobId, i.urlsFrom?.limit ?? 0);
      return { jobId, recovered: false };
    },
    appendBatchScrape: (i) => {
      const out = append(i.jobId, i.urlsFrom.limit);
      if (out.kind === 'appended') size.set(i.jobId, (size.get(i.jobId) ?? 0) + i.urlsFrom.limit);
      return out;
    },
    getJobSummary: (i) => summary(i.kind, i.jobId, 'completed', size.get(i.jobId)),
    followJob: (i) => {
      followed();
      const pages = size.get(i.jobId) ?? 0;
      // Every item of the job read: the collector's cursor stands at its end.
      const cursor = { skip: pages, pages: 1, written: pages - (i.cursor?.skip ?? 0) };
      return { kind: 'done', summary: summary(i.kind, i.jobId, 'completed', pages), collected: { ...collected(i.kind, i.jobId, i.runId, pages), cursor } };
    },
  });
  return { stubs, firstFollow };
}

async function runWithRaise(id: string, stubs: ReturnType<typeof batchStubs>) {
  return wt.with(stubs.stubs, async () => {
    const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: id, args: [input()] });
    // The clamped job exists once it is followed; the raise comes after, as a user's would.
    await stubs.firstFollow;
    await handle.executeUpdate(raiseBudgetUpdate, { args: [{ credits: 5 }] });
    return handle.result();
  });
}

describe('batch append after a budget raise', () => {
  test('the URL left joins the same job: one job id, one append with its own key, credits counted once', async () => {
    const s = batchStubs((jobId, urls) => ({ kind: 'appended', jobId, urls, recovered: false }));
    const result = await runWithRaise('batch-append', s);
    const [append] = s.stubs.inputs('appendBatchScrape');
    assert.equal(s.stubs.inputs('appendBatchScrape').length, 1);
    assert.equal(s.stubs.inputs('startBatchScrape').length, 1);
    assert.equal(append.jobId, 'batch-1');
    assert.deepEqual({ offset: append.urlsFrom.offset, limit: append.urlsFrom.limit }, { offset: 2, limit: 1 });
    assert.match(append.idempotencyKey ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(append.totalBefore, 2);
    assert.equal(result.status, 'completed');
    assert.equal(result.stages.batch?.jobId, 'batch-1');
    assert.equal(result.stages.batch?.documents, 3);
    assert.equal(result.stages.batch?.credits, 3);
    assert.equal(result.credits.spent, 4, 'map 1 + 3 pages, the first 2 not counted again');
    assert.equal(result.jobs['batch+append#1'], 'batch-1');
    assert.ok(result.credits.events.includes('batch: 1 URLs appended to job batch-1 (budget raised)'), result.credits.events.join('; '));
  });

  test('the appended job is followed on from where its first collection ended, not from skip 0', async () => {
    const s = batchStubs((jobId, urls) => ({ kind: 'appended', jobId, urls, recovered: false }));
    const result = await runWithRaise('batch-append-follows-on', s);
    const follows = s.stubs.inputs('followJob');
    assert.deepEqual(follows.map((f) => f.jobId), ['batch-1', 'batch-1']);
    assert.equal(follows[0].cursor, undefined, 'the clamped job is followed from its start');
    assert.deepEqual(follows[1].cursor, { skip: 2, pages: 0, written: 0 }, 'the 2 items read before the append are not read again');
    assert.equal(result.stages.batch?.documents, 3);
    assert.equal(result.credits.spent, 4);
  });

  test('a service without append: the URL left goes to a new job, the report adds both', async () => {
    const s = batchStubs(() => ({ kind: 'not-available', reason: 'batch scrape append: not available on this service (appendToId)' }));
    const result = await runWithRaise('batch-append-fallback', s);
    const starts = s.stubs.inputs('startBatchScrape');
    assert.equal(starts.length, 2);
    assert.deepEqual({ offset: starts[1].urlsFrom?.offset, limit: starts[1].urlsFrom?.limit }, { offset: 2, limit: 1 });
    assert.equal(result.status, 'completed');
    assert.equal(result.stages.batch?.jobId, 'batch-2');
    assert.equal(result.stages.batch?.documents, 3);
    assert.equal(result.stages.batch?.credits, 3);
    assert.equal(result.credits.spent, 4);
    assert.deepEqual(result.stages.batch?.notAvailable, ['batch append (appendToId)']);
    assert.equal(result.jobs['batch+new#1'], 'batch-2');
  });

  test('no raise within waitForRaiseMs: the URL left stays unscraped, nothing appended', async () => {
    const s = batchStubs((jobId, urls) => ({ kind: 'appended', jobId, urls, recovered: false }));
    const result = await wt.with(s.stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'batch-append-none', args: [input()] }));
    assert.equal(s.stubs.inputs('appendBatchScrape').length, 0);
    assert.equal(result.stages.batch?.documents, 2);
    assert.equal(result.credits.spent, 3);
    assert.ok(result.credits.events.some((e) => e.startsWith('batch: 1 URLs left unscraped')), result.credits.events.join('; '));
  });
});

describe('a job cut at the team\'s credits', () => {
  test('fewer pages than asked while the team has no credits left: an event, a note, the run partial', async () => {
    const stubs = siteStubs({
      // The service cut the crawl's limit of 3 to 2 pages: its credits ran out.
      getJobSummary: (i) => summary(i.kind, i.jobId, 'completed', 2),
      followJob: (i) => ({ kind: 'done', summary: summary(i.kind, i.jobId, 'completed', 2), collected: collected(i.kind, i.jobId, i.runId, 2) }),
      getCreditUsage: () => ({ remainingCredits: 0, planCredits: 500, billingPeriodStart: null, billingPeriodEnd: null }),
    });
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'limit-cut', args: [crawlInput()] }));
    assert.equal(result.status, 'partial');
    assert.equal(result.stages.crawl?.status, 'completed');
    assert.ok(result.credits.events.some((e) => e.startsWith('crawl: 2 of 3 pages, the team\'s credits ran out')), result.credits.events.join('; '));
    assert.ok(result.stages.crawl?.notes?.includes('cut at the team\'s credits: 2 of 3 pages'));
  });

  test('fewer pages than asked with credits left (a small site): completed, as before', async () => {
    const stubs = siteStubs({
      getJobSummary: (i) => summary(i.kind, i.jobId, 'completed', 2),
      followJob: (i) => ({ kind: 'done', summary: summary(i.kind, i.jobId, 'completed', 2), collected: collected(i.kind, i.jobId, i.runId, 2) }),
      getCreditUsage: () => ({ remainingCredits: 40, planCredits: 500, billingPeriodStart: null, billingPeriodEnd: null }),
    });
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'limit-short', args: [crawlInput()] }));
    assert.equal(result.status, 'completed');
    assert.equal(stubs.inputs('getCreditUsage').length, 1);
    assert.deepEqual(result.credits.events, []);
  });
});
