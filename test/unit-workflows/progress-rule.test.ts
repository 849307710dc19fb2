// The progress rule and the run deadline, with stubbed activities on the time-skipping server:
// a crawl job that stops moving is declared stalled after the run's stall time, cancelled,
// collected and its missing pages recovered by one new job; a second stall ends the run partial
// with that reason; a run past its deadline cancels its job and ends partial. The stubbed job
// "moves" only while its completed count changes, as the service's status reads it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobSummary } from '../../src/activities/types.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { siteStubs, SITE, type Activities } from './pipeline-stubs.js';
import type { Stubs } from '../helpers/stub-activities.js';

let wt: WorkflowTests;
before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

const LIMIT = 10;
const page = (i: number) => (i === 0 ? SITE : `${SITE}p${i}`);

function input(extra: Partial<PipelineInput> = {}): PipelineInput {
  return { url: SITE, crawl: { limit: LIMIT }, stallAfterMs: 20_000, ...extra, stages: { map: false, select: false, batch: false, interact: false, support: false, ...extra.stages } };
}

/**
 * A service whose crawl jobs are scripted: job n stores `plan[n-1].stops` pages and then stands
 * still (`scraping` for good) until cancelled, or ends `completed` when `stops` is undefined.
 * Its follower reports that the service ignores skip, so the stage collects at the end (as
 * against the open-source server), and the store is a map of job → URLs.
 */
function stuckService(plan: Array<{ stops?: number; pages: number[] }>) {
  const stored = new Map<string, string[]>();
  const billed = new Map<string, number>();
  const cancelled = new Set<string>();
  let started = 0;
  const job = (jobId: string) => plan[Number(jobId.split('-')[1]) - 1];
  const summaryOf = (jobId: string): JobSummary => {
    const p = job(jobId);
    const ended = p.stops === undefined || cancelled.has(jobId);
    const completed = p.stops ?? p.pages.length;
    return {
      jobId, kind: 'crawl',
      status: p.stops === undefined ? 'completed' : cancelled.has(jobId) ? 'cancelled' : 'scraping',
      total: p.pages.length, completed,
      // The page in flight when it stopped was billed too.
      creditsUsed: ended && p.stops !== undefined ? completed + 1 : completed,
    };
  };
  const stubs: Stubs = siteStubs({
    startCrawl: () => {
      const jobId = `crawl-${++started}`;
      const p = job(jobId);
      billed.set(jobId, (p.stops ?? p.pages.length) + (p.stops !== undefined ? 1 : 0));
      return { jobId, recovered: false };
    },
    getJobSummary: (i) => summaryOf(i.jobId),
    followJob: () => ({ kind: 'at-end', cursor: { skip: 0, pages: 1, written: 0 }, reason: 'a status page at skip 0 repeated documents already read' }),
    cancelJob: (i) => {
      cancelled.add(i.jobId);
      return { status: 'cancelled' };
    },
    collectCrawl: (i) => {
      const p = job(i.jobId);
      const skip = new Set((i.skipStoredOf ?? []).flatMap((id) => stored.get(id) ?? []));
      const urls = p.pages.slice(0, p.stops ?? p.pages.length).map(page).filter((u) => !skip.has(u));
      stored.set(i.jobId, urls);
      const s = summaryOf(i.jobId);
      return { jobId: i.jobId, kind: 'crawl', status: s.status, documents: urls.length, written: urls.length, failures: 0, creditsUsed: s.creditsUsed, pages: 1, ref: { runId: i.runId, jobId: i.jobId } };
    },
    lostJobInventory: (i) => ({ jobId: i.jobId, documents: stored.get(i.jobId)?.length ?? 0, failures: 0, urls: stored.get(i.jobId) ?? [], truncated: false }),
    storedCounts: (i) => ({ documents: stored.get(i.jobId)?.length ?? 0, failures: 0 }),
  } satisfies Parameters<typeof siteStubs>[0]);
  return { stubs, stored, billed, cancelled, documents: () => [...stored.values()].reduce((n, u) => n + u.length, 0) };
}

function run(stubs: Stubs, workflowId: string, args: PipelineInput): Promise<PipelineResult> {
  return wt.with(stubs, () => wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [args] }));
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('the progress rule', () => {
  test('a crawl that stops moving is cancelled, collected, and only its missing pages recovered', async () => {
    // Job 1 stands still at 6 of 10; job 2 (the recovery) gets pages 6-9 and the start page again.
    const service = stuckService([{ stops: 6, pages: range(0, 10) }, { pages: [0, ...range(6, 10)] }]);
    const result = await run(service.stubs, 'stall-recovered', input());
    const crawl = result.stages.crawl;
    assert.equal(result.status, 'completed', JSON.stringify(crawl));
    assert.deepEqual(service.stubs.inputs('cancelJob').map((c) => c.jobId), ['crawl-1']);
    assert.ok(crawl?.stalled);
    assert.equal(crawl.stalled.jobId, 'crawl-1');
    assert.equal(crawl.stalled.completed, 6);
    assert.equal(crawl.stalled.total, 10);
    assert.equal(crawl.stalled.cancel, 'cancelled');
    assert.equal(crawl.stalled.stored, 6);
    // Declared once it stood still for the stall time, and not much later (reads are spaced at most 30 s).
    assert.ok(crawl.stalled.stillForMs >= 20_000 && crawl.stalled.stillForMs < 20_000 + 30_000, String(crawl.stalled.stillForMs));
    assert.deepEqual(crawl.recovered, { lostJob: 'crawl-1', why: 'stalled', newJob: 'crawl-2', pages: 4, lostPages: 6, lostCredits: 7, creditsEstimated: false });
    // The recovery crawl left the stored pages out and was given what was missing (+ the start page).
    const recovery = service.stubs.inputs('startCrawl')[1].body;
    assert.equal(recovery.limit, LIMIT - 6 + 1);
    assert.deepEqual(recovery.excludePaths, ['^(/p1|/p2|/p3|/p4|/p5)$']);
    // Every page once; documents and credits are the store's and the service's (no estimate).
    const all = [...service.stored.values()].flat();
    assert.equal(new Set(all).size, all.length);
    assert.equal(all.length, LIMIT);
    assert.equal(result.documents, service.documents());
    assert.equal(crawl.documents, service.documents());
    assert.equal(result.credits.spent, [...service.billed.values()].reduce((a, b) => a + b, 0));
    assert.equal(result.credits.estimated, undefined);
    assert.ok(crawl.notes?.some((n) => /^crawl job crawl-1 stalled: no progress for \d+ s at 6\/10$/.test(n)), JSON.stringify(crawl.notes));
    assert.equal(crawl.progress, undefined);
  });

  test('the recovery job stalls too: the run ends partial naming both, and waits no more', async () => {
    const service = stuckService([{ stops: 6, pages: range(0, 10) }, { stops: 2, pages: [0, ...range(6, 10)] }]);
    const result = await run(service.stubs, 'stall-twice', input());
    const crawl = result.stages.crawl;
    assert.equal(result.status, 'partial', JSON.stringify(crawl));
    assert.equal(crawl?.status, 'failed');
    assert.match(crawl?.reason ?? '', /^crawl job crawl-1 stalled \(no progress for \d+ s at 6\/10; cancel: cancelled\); the job recovering it failed: crawl job crawl-2 stalled \(no progress for \d+ s at 2\/5; cancel: cancelled\): it was recovering stalled job crawl-1; a stage recovers once$/);
    assert.deepEqual(service.stubs.inputs('cancelJob').map((c) => c.jobId), ['crawl-1', 'crawl-2']);
    assert.equal(result.documents, service.documents());
    assert.equal(result.credits.spent, [...service.billed.values()].reduce((a, b) => a + b, 0));
  });

  test('a job that moves slowly is not stalled: each new page restarts the clock', async () => {
    // 10 pages, one every 15 s of (skipped) time: never 20 s without progress.
    let reads = 0;
    let at = 0;
    const stubs = siteStubs({
      getJobSummary: (i) => {
        reads += 1;
        at = Math.min(10, at + 1);
        return { jobId: i.jobId, kind: 'crawl', status: at >= 10 ? 'completed' : 'scraping', total: 10, completed: at, creditsUsed: at };
      },
      followJob: () => ({ kind: 'at-end', cursor: { skip: 0, pages: 1, written: 0 }, reason: 'test' }),
      collectCrawl: (i) => ({ jobId: i.jobId, kind: 'crawl', status: 'completed', documents: 10, written: 10, failures: 0, creditsUsed: 10, pages: 1, ref: { runId: i.runId, jobId: i.jobId } }),
    });
    const result = await run(stubs, 'slow-not-stalled', input({ polling: { minIntervalMs: 15_000, maxIntervalMs: 15_000 } }));
    assert.equal(result.status, 'completed');
    assert.equal(result.stages.crawl?.stalled, undefined);
    assert.equal(stubs.inputs('cancelJob').length, 0);
    assert.ok(reads >= 10);
  });
});

describe('the run deadline', () => {
  test('past the deadline the job is cancelled and the run ends partial with what it stored', async () => {
    const service = stuckService([{ stops: 4, pages: range(0, 10) }]);
    // Cancelled at the deadline, the stuck job is collected by the stage's figures from the store.
    service.stubs.activities.storedCounts = (async (i: { jobId: string }) => {
      service.stored.set(i.jobId, range(0, 4).map(page));
      return { documents: 4, failures: 0 };
    }) as Activities['storedCounts'];
    const result = await run(service.stubs, 'deadline', input({ stallAfterMs: 3_600_000, deadlineMs: 60_000, stages: { interact: true } }));
    const crawl = result.stages.crawl;
    assert.equal(result.status, 'partial', JSON.stringify(result.stages));
    assert.equal(crawl?.status, 'failed');
    assert.match(crawl?.reason ?? '', /^run deadline reached \(deadlineMs 60000\): crawl job crawl-1 cancelled \(cancelled\) with 4 documents stored$/);
    assert.equal(result.stages.interact?.status, 'skipped');
    assert.equal(result.stages.interact?.reason, 'run deadline reached (deadlineMs 60000)');
    assert.deepEqual(service.stubs.inputs('cancelJob').map((c) => c.jobId), ['crawl-1']);
    assert.equal(result.documents, 4);
    assert.equal(result.credits.spent, 5);
  });
});
