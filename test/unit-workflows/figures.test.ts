// A run's figures against their sources, with stubbed activities standing in for the service
// (what it billed each job) and the store (what each job stored): for a completed run, a stage
// whose job failed, and a crawl whose job was lost mid-way (recovered, and not recoverable for
// want of budget). Credits equal what the service billed, except a lost job's, which are marked
// estimated; documents equal the store's, per stage and in total.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import type { JobSummary } from '../../src/activities/types.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { siteStubs, SITE, storeRef } from './pipeline-stubs.js';

let wt: WorkflowTests;
before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

/** The service's bills and the store's documents, by job; the stubs write both. */
class Ledger {
  billed = new Map<string, number>();
  stored = new Map<string, string[]>();
  lost = new Set<string>();
  store(jobId: string, urls: string[]): number {
    const have = this.stored.get(jobId) ?? [];
    const fresh = urls.filter((u) => !have.includes(u));
    this.stored.set(jobId, [...have, ...fresh]);
    return fresh.length;
  }
  bill(jobId: string, credits: number): void {
    this.billed.set(jobId, (this.billed.get(jobId) ?? 0) + credits);
  }
  documents(): number {
    return [...this.stored.values()].reduce((n, urls) => n + urls.length, 0);
  }
}

const page = (i: number) => (i === 0 ? SITE : `${SITE}p${i}`);
const pages = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => page(from + i));
const notFound = (jobId: string) => ApplicationFailure.create({ message: `GET /v2/crawl/${jobId} failed with HTTP 404: Job not found`, type: 'not_found', nonRetryable: true });

function input(extra: Partial<PipelineInput> = {}): PipelineInput {
  return { url: SITE, crawl: { limit: 10 }, ...extra, stages: { map: false, select: false, batch: false, interact: false, support: false, ...extra.stages } };
}

function running(jobId: string, completed: number): JobSummary {
  return { jobId, kind: 'crawl', status: 'scraping', total: 10, completed, creditsUsed: completed };
}

/** Stubs where each crawl job is played by `jobs[n]` (its follower's one call). */
function crawlStubs(ledger: Ledger, jobs: Array<(jobId: string, skipStoredOf: string[] | undefined) => { documents: number; end: 'done' | 'lost' | 'failed' }>) {
  let started = 0;
  const followed = new Set<string>();
  const summaryOf = (jobId: string): JobSummary => {
    const n = ledger.stored.get(jobId)?.length ?? 0;
    return { jobId, kind: 'crawl', status: 'completed', total: n, completed: n, creditsUsed: ledger.billed.get(jobId) ?? 0 };
  };
  return siteStubs({
    startCrawl: () => ({ jobId: `crawl-${++started}`, recovered: false }),
    getJobSummary: (i) => {
      // Until the follower ran, the job is running; then the service answers for it as it ended.
      if (!followed.has(i.jobId)) return running(i.jobId, 0);
      if (ledger.lost.has(i.jobId)) throw notFound(i.jobId);
      return summaryOf(i.jobId);
    },
    followJob: (i) => {
      const play = jobs[Number(i.jobId.split('-')[1]) - 1];
      const out = play(i.jobId, i.skipStoredOf);
      followed.add(i.jobId);
      if (out.end === 'lost') {
        ledger.lost.add(i.jobId);
        throw notFound(i.jobId);
      }
      if (out.end === 'failed') throw ApplicationFailure.create({ message: 'store full', type: 'store_no_space', nonRetryable: true });
      const s = summaryOf(i.jobId);
      return { kind: 'done', summary: s, collected: { jobId: i.jobId, kind: 'crawl', status: 'completed', documents: s.completed, written: s.completed, failures: 0, creditsUsed: s.creditsUsed, pages: 1, ref: { runId: i.runId, jobId: i.jobId } } };
    },
    lostJobInventory: (i) => ({ jobId: i.jobId, documents: ledger.stored.get(i.jobId)?.length ?? 0, failures: 0, urls: ledger.stored.get(i.jobId) ?? [], truncated: false }),
    storedCounts: (i) => ({ documents: ledger.stored.get(i.jobId)?.length ?? 0, failures: 0 }),
  });
}

function run(stubs: ReturnType<typeof crawlStubs>, workflowId: string, args: PipelineInput): Promise<PipelineResult> {
  return wt.with(stubs, () => wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [args] }));
}

/** Per stage and in total, documents equal the store's; credits equal the bills of jobs not lost. */
function assertFigures(result: PipelineResult, ledger: Ledger): void {
  assert.equal(result.documents, ledger.documents(), 'result.documents = stored documents');
  assert.equal(result.stages.crawl?.documents ?? 0, ledger.documents(), 'crawl stage documents = stored documents');
  const exact = [...ledger.billed].filter(([id]) => !ledger.lost.has(id)).reduce((n, [, c]) => n + c, 0);
  if (ledger.lost.size === 0) {
    assert.equal(result.credits.spent, exact, 'credits = what the service billed');
    assert.equal(result.credits.estimated, undefined);
    return;
  }
  // A lost job's credits: estimated (marked), never more than the service billed it.
  const estimates = (result.credits.estimated ?? []).map((line) => Number(/; (\d+) credits estimated/.exec(line)?.[1]));
  assert.equal(estimates.length, ledger.lost.size, 'one estimate per lost job');
  assert.equal(result.credits.spent, exact + estimates.reduce((n, c) => n + c, 0), 'credits = billed jobs + the lost jobs estimated');
  const lostBilled = [...ledger.lost].reduce((n, id) => n + (ledger.billed.get(id) ?? 0), 0);
  assert.ok(estimates.reduce((n, c) => n + c, 0) <= lostBilled, 'an estimate is not above the bill');
  assert.equal(result.credits.byStage.crawl ?? 0, result.stages.crawl?.credits ?? 0, 'the stage figure is the one in the total');
}

describe('figures equal the service and the store', () => {
  test('completed', async () => {
    const ledger = new Ledger();
    const stubs = crawlStubs(ledger, [(id) => {
      ledger.bill(id, 10);
      return { documents: ledger.store(id, pages(0, 10)), end: 'done' };
    }]);
    const result = await run(stubs, 'figures-completed', input());
    assert.equal(result.status, 'completed');
    assert.equal(result.documents, 10);
    assertFigures(result, ledger);
  });

  test('failed stage: the store and the service, not the last status read', async () => {
    const ledger = new Ledger();
    const stubs = crawlStubs(ledger, [(id) => {
      // Stored 5, billed 7 (two pages scraped but not collected when the store failed).
      ledger.bill(id, 7);
      return { documents: ledger.store(id, pages(0, 5)), end: 'failed' };
    }]);
    const result = await run(stubs, 'figures-failed', input());
    assert.equal(result.status, 'partial');
    assert.equal(result.stages.crawl?.status, 'failed');
    assert.equal(result.stages.crawl?.documents, 5);
    assert.equal(result.credits.spent, 7);
    assertFigures(result, ledger);
  });

  test('lost mid-crawl: one new crawl without the stored pages; every page stored once', async () => {
    const ledger = new Ledger();
    const stubs = crawlStubs(ledger, [
      (id) => {
        // 6 pages stored, 8 billed, then the service forgot the job.
        ledger.bill(id, 8);
        return { documents: ledger.store(id, pages(0, 6)), end: 'lost' };
      },
      (id, skip) => {
        assert.deepEqual(skip, ['crawl-1']);
        // The start page is scraped again (billed) and left out as stored.
        ledger.bill(id, 5);
        return { documents: ledger.store(id, pages(6, 10)), end: 'done' };
      },
    ]);
    const result = await run(stubs, 'figures-recovered', input());
    assert.equal(result.status, 'completed', JSON.stringify(result.stages.crawl));
    const crawl = result.stages.crawl;
    assert.deepEqual(crawl?.recovered, { lostJob: 'crawl-1', why: 'lost', newJob: 'crawl-2', pages: 4, lostPages: 6, lostCredits: 6, creditsEstimated: true });
    assert.equal(crawl?.jobId, 'crawl-2');
    assert.equal(result.jobs['crawl#recovery'], 'crawl-2');
    // The new crawl: what was not stored (4) plus the start page, the stored pages excluded.
    const body = stubs.inputs('startCrawl')[1].body;
    assert.equal(body.limit, 5);
    assert.deepEqual(body.excludePaths, ['^(/p1|/p2|/p3|/p4|/p5)$']);
    assert.equal(result.documents, 10);
    assert.equal(result.credits.spent, 11);
    assert.match(result.credits.estimated?.[0] ?? '', /^crawl: job crawl-1 lost; 6 credits estimated from its 6 stored pages/);
    // The estimate never exceeds what the service billed the lost job.
    assertFigures(result, ledger);
  });

  test('lost, no budget for the rest: the stage fails naming the lost job, figures still add up', async () => {
    const ledger = new Ledger();
    const stubs = crawlStubs(ledger, [(id) => {
      ledger.bill(id, 6);
      return { documents: ledger.store(id, pages(0, 6)), end: 'lost' };
    }]);
    // The team's month: room for the first crawl; used up (the lost job billed on) for a second.
    stubs.activities.creditSnapshot = async () => ({ remainingCredits: 1000, usedThisMonth: ledger.lost.size > 0 ? 100 : 0 });
    const result = await run(stubs, 'figures-lost-no-budget', input({ budget: { credits: 1000, monthlyCap: 100 } }));
    assert.equal(result.status, 'partial');
    const crawl = result.stages.crawl;
    assert.equal(crawl?.status, 'failed');
    assert.match(crawl?.reason ?? '', /^crawl job crawl-1 lost \(not_found: .*Job not found\): not recovered: budget/);
    assert.equal(crawl?.recovered, undefined);
    assert.equal(stubs.inputs('startCrawl').length, 1);
    assert.equal(crawl?.documents, 6);
    assert.equal(result.credits.spent, 6);
    assertFigures(result, ledger);
  });

  test('a batch lost mid-way: one new batch of the URLs it did not store', async () => {
    const ledger = new Ledger();
    const urls = pages(0, 10);
    let started = 0;
    const followed = new Set<string>();
    const stubs = siteStubs({
      mapToStore: (i) => ({ count: 10, creditsUsed: 1, ref: { runId: i.runId, list: 'mapped' }, sample: [] }),
      selectUrls: (i) => ({ count: 10, ref: { runId: i.runId, list: i.toList }, sample: [], pathPatterns: [] }),
      // The stage's list, then the URLs the lost batch did not store.
      diffUrls: (i) => ({ count: i.toList === 'missing.recovery' ? 10 - (ledger.stored.get('batch-1')?.length ?? 0) : 10, ref: storeRef(i.runId, { list: i.toList }), sample: [] }),
      filterRobots: (i) => ({ count: 10, skipped: 0, userAgent: 'test', ref: storeRef(i.runId, { list: i.toList }), skippedRef: storeRef(i.runId, { list: 'missing.robots' }), sample: [], skippedSample: [] }),
      startBatchScrape: () => ({ jobId: `batch-${++started}`, recovered: false }),
      getJobSummary: (i) => {
        if (!followed.has(i.jobId)) return { jobId: i.jobId, kind: 'batch', status: 'scraping', total: 10, completed: 0, creditsUsed: 0 };
        if (ledger.lost.has(i.jobId)) throw notFound(i.jobId);
        const n = ledger.stored.get(i.jobId)?.length ?? 0;
        return { jobId: i.jobId, kind: 'batch', status: 'completed', total: n, completed: n, creditsUsed: ledger.billed.get(i.jobId) ?? 0 };
      },
      followJob: (i) => {
        followed.add(i.jobId);
        if (i.jobId === 'batch-1') {
          ledger.bill(i.jobId, 7);
          ledger.store(i.jobId, urls.slice(0, 4));
          ledger.lost.add(i.jobId);
          throw notFound(i.jobId);
        }
        assert.deepEqual(i.skipStoredOf, ['batch-1']);
        ledger.bill(i.jobId, 6);
        const n = ledger.store(i.jobId, urls.slice(4));
        const s = { jobId: i.jobId, kind: 'batch' as const, status: 'completed' as const, total: n, completed: n, creditsUsed: 6 };
        return { kind: 'done', summary: s, collected: { jobId: i.jobId, kind: 'batch', status: 'completed', documents: n, written: n, failures: 0, creditsUsed: 6, pages: 1, ref: { runId: i.runId, jobId: i.jobId } } };
      },
      lostJobInventory: (i) => ({ jobId: i.jobId, documents: ledger.stored.get(i.jobId)?.length ?? 0, failures: 0, urls: ledger.stored.get(i.jobId) ?? [], truncated: false }),
    });
    const result = await run(stubs as ReturnType<typeof crawlStubs>, 'figures-batch-recovered', { url: SITE, mode: 'batch', stages: { interact: false, support: false } });
    assert.equal(result.status, 'completed', JSON.stringify(result.stages.batch));
    const batch = result.stages.batch;
    assert.deepEqual(batch?.recovered, { lostJob: 'batch-1', why: 'lost', newJob: 'batch-2', pages: 6, lostPages: 4, lostCredits: 4, creditsEstimated: true });
    const [, recovery] = stubs.inputs('startBatchScrape');
    assert.deepEqual(recovery.urlsFrom, { runId: 'figures-batch-recovered', list: 'missing.recovery', limit: 6 });
    assert.equal(stubs.inputs('diffUrls')[1].coveredByJobs[0], 'batch-1');
    assert.equal(batch?.documents, ledger.documents());
    assert.equal(result.documents, ledger.documents());
    // Map's credit, the new batch as billed, the lost one estimated from its 4 stored pages.
    assert.equal(result.credits.spent, 1 + 6 + 4);
    assert.equal(batch?.credits, 6 + 4);
    assert.match(result.credits.estimated?.[0] ?? '', /^batch: job batch-1 lost; 4 credits estimated/);
  });
});
