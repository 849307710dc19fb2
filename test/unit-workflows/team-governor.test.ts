// The fleet governor on the time-skipping test server: the governor workflow itself (a lease its
// holder stops renewing expires and goes to the next in line; a 429 pause holds grants until it
// ends), and governed pipelines whose governor activities are the real ones (only the service is
// stubbed): a tenant arriving while a large batch runs gets its share when the current chunk
// ends, before the batch ends; a cancelled run gives its share back.
import { after, afterEach, before, describe, test } from 'node:test';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import assert from 'node:assert/strict';
import { createTeamGovernorActivities } from '../../src/activities/team-governor.js';
import type { ActivityDeps } from '../../src/activities/deps.js';
import { acquireShare, askShare, governorStatus, pauseTeam, releaseShare, type GovernorTarget } from '../../src/coordination/team-governor.js';
import { governorWorkflowId } from '../../src/shared/team-governor-messages.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { collected, siteStubs, summary, SITE } from './pipeline-stubs.js';

let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

/** The teams whose governors the tests start. */
const TEAMS = ['expiry', 'notice', 'fair', 'cancel', 'line'];

/**
 * A governor outlives its runs (its lease timers go on): ended after each test, so that a file
 * run after this one in the same process (together.ts) does not share the test server's clock
 * with it.
 */
async function endGovernors(): Promise<void> {
  await Promise.all(TEAMS.map((team) => wt.env.client.workflow.getHandle(governorWorkflowId(team)).terminate('test over').catch(() => undefined)));
}

function target(team: string, concurrency: number): GovernorTarget {
  return { client: wt.env.client, taskQueue: wt.taskQueue, team, concurrency };
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The governor activities as the worker has them, for a client of team `team`; tenants without budgets. */
function governorActivities(team: string) {
  return {
    ...createTeamGovernorActivities({ client: { teamId: team } } as unknown as ActivityDeps),
    tenantCredits: () => null,
    reserveTenantCredits: () => ({ granted: true, left: null }),
    settleTenantCredits: (input: { tenant: string }) => ({ tenant: input.tenant, month: '2026-11', budget: null, used: 0, held: 0, left: null }),
    acquireTenantSlot: (input: { tenant: string }) => ({ granted: true, runsInFlight: 1, limit: null, usage: { tenant: input.tenant, month: '2026-11', budget: null, used: 0, held: 0, left: null } }),
    releaseTenantSlot: () => undefined,
  };
}

/**
 * Waits (in real time, generously) for `reached`. Not raced with the run's result: waiting for a
 * result lets the test server skip time, and leases would expire under the test.
 */
async function reached(what: string, gateOpen: { promise: Promise<void> }): Promise<void> {
  let done = false;
  void gateOpen.promise.then(() => (done = true));
  await until(what, () => done);
}

function batchInput(tenant: string, governor: PipelineInput['governor']): PipelineInput {
  return { url: SITE, mode: 'batch', tenant, governor, stages: { interact: false } };
}

async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  // Generous: the machine is busy; each look is cheap.
  for (let i = 0; i < 1200; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/**
 * The first update-with-start of a file can outlast the test server's own deadline while the
 * worker loads its bundle on a busy machine (UNKNOWN "Application error processing RPC"); an
 * acquire is idempotent by key, so it is asked again, as the worker's activity retry would.
 */
async function firstAsk<T>(ask: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask();
    } catch (err) {
      if (attempt >= 4 || !/Update-With-Start failed/.test(String((err as Error)?.message))) throw err;
    }
  }
}

describe('team governor workflow', () => {
  afterEach(endGovernors);
  test('a lease not renewed expires and goes to the next in line; a 429 pause holds grants until it ends', async () => {
    const to = target('expiry', 4);
    const first = await firstAsk(() => acquireShare(to, { key: 'w/a1', tenant: 'a', want: 4, ttlMs: 10_000 }));
    assert.equal(first.granted && first.share, 4);
    const second = await acquireShare(to, { key: 'w/b1', tenant: 'b', want: 4, ttlMs: 10_000 });
    assert.equal(second.granted, false);
    // a1's holder is gone: no renewal. The governor's own timer reclaims it.
    await wt.env.sleep(11_000);
    const status = await governorStatus(wt.env.client, 'expiry');
    assert.equal(status?.expired, 1);
    assert.deepEqual(status?.tenants.map((t) => [t.tenant, t.held]), [['b', 4]]);
    await releaseShare(to, 'w/b1');

    const now = await wt.env.currentTimeMs();
    await pauseTeam(to, now + 30_000);
    const paused = await acquireShare(to, { key: 'w/c1', tenant: 'c', want: 2 });
    assert.equal(paused.granted, false);
    assert.ok(!paused.granted && paused.pausedUntil === now + 30_000);
    await wt.env.sleep(31_000);
    const after = await acquireShare(to, { key: 'w/c1', tenant: 'c', want: 2 });
    assert.equal(after.granted && after.share, 2);
    await releaseShare(to, 'w/c1');
  });
});

describe('team governor notices', () => {
  afterEach(endGovernors);
  test('a notice its run cannot receive gives the lease back at once; an ask by update is told nothing', async () => {
    const to = target('notice', 4);
    const holder = await firstAsk(() => acquireShare(to, { key: 'w/holder', tenant: 'a', want: 4 }));
    assert.equal(holder.granted && holder.share, 4);
    // Asked by signal for a run that does not exist: the governor's notice fails when it grants.
    await askShare(to, { key: 'gone/batch', tenant: 'b', want: 2, notify: 'gone' });
    await until('b in line', async () => (await governorStatus(wt.env.client, 'notice'))?.tenants.some((t) => t.tenant === 'b' && t.waiting === 1) === true);
    // Asked by update (a run from before asks by signal): answered, told nothing later.
    const old = await acquireShare(to, { key: 'old/batch', tenant: 'c', want: 1 });
    assert.equal(old.granted, false);
    await releaseShare(to, 'w/holder');
    // b is granted (and told: the notice fails) and c is granted; b's lease comes back without
    // waiting for its expiry, so only c's 1 is in use.
    await until('the failed notice gave the lease back', async () => (await governorStatus(wt.env.client, 'notice'))?.inUse === 1);
    const status = await governorStatus(wt.env.client, 'notice');
    assert.deepEqual(status?.tenants.map((t) => [t.tenant, t.held]), [['c', 1]]);
    assert.equal(status?.expired, 0);
    const history = await wt.env.client.workflow.getHandle(governorWorkflowId('notice')).fetchHistory();
    const notices = (history.events ?? []).filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'webdataShareGranted');
    assert.equal(notices.length, 1, 'one notice, to b; none to c or to the holder granted in its answer');
    await releaseShare(to, 'old/batch');
  });
});

describe('governed pipelines', () => {
  afterEach(endGovernors);
  test('a tenant who arrives during a large batch starts when its current chunk ends, before the batch does; all shares come back', async () => {
    const team = 'fair';
    const chunkOneRunning = gate();
    const chunkOneEnds = gate();
    const urls: Record<string, number> = { 'gov-big': 6, 'gov-small': 2 };
    let bigJobs = 0;
    const stubs = siteStubs({
      ...governorActivities(team),
      mapToStore: (input) => ({ count: urls[input.runId], creditsUsed: 1, ref: { runId: input.runId, list: 'mapped' }, sample: [] }),
      selectUrls: (input) => ({ count: urls[input.runId], ref: { runId: input.runId, list: input.toList }, sample: [], pathPatterns: [] }),
      diffUrls: (input) => ({ count: urls[input.runId], ref: { store: 'fs', runId: input.runId, list: input.toList }, sample: [] }),
      filterRobots: (input) => ({ count: urls[input.runId], skipped: 0, ref: { store: 'fs', runId: input.runId, list: input.toList } }) as never,
      startBatchScrape: (input) => {
        const runId = input.urlsFrom?.runId ?? '';
        if (runId === 'gov-big') bigJobs++;
        return { jobId: `${runId}-${input.urlsFrom?.offset ?? 0}`, recovered: false };
      },
      followJob: async (input) => {
        const pages = 2;
        if (input.jobId === 'gov-big-0') {
          chunkOneRunning.open();
          await chunkOneEnds.promise;
        }
        return { kind: 'done', summary: summary('batch', input.jobId, 'completed', pages), collected: collected('batch', input.jobId, input.runId, pages) };
      },
    });
    // overcommit 1: the team's own 4 (the line is what this test is about).
    const governor = { teamConcurrency: 4, chunkPages: 2, leaseTtlMs: 60_000, overcommit: 1 };
    const [big, small] = await wt.with(stubs, async () => {
      const bigRun = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'gov-big', args: [batchInput('big', governor)] });
      await reached("the big run's first chunk", chunkOneRunning);
      const smallRun = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'gov-small', args: [batchInput('small', governor)] });
      // The small run is in line: the big run's first chunk holds the whole team.
      await until('the small run in line', async () => (await governorStatus(wt.env.client, team))?.tenants.some((t) => t.tenant === 'small' && t.waiting === 1) === true);
      chunkOneEnds.open();
      // In real time: a skip to the governor's lease timers could pass a workflow task's timeout.
      return Promise.all([wt.realTime.workflow.result<typeof webDataPipeline>(bigRun.workflowId), wt.realTime.workflow.result<typeof webDataPipeline>(smallRun.workflowId)]);
    });
    assert.equal(big.status, 'completed');
    assert.equal(small.status, 'completed');
    assert.equal(big.stages.batch?.documents, 6);
    assert.equal(small.stages.batch?.documents, 2);
    const starts = stubs.inputs('startBatchScrape').map((i) => [i.urlsFrom?.runId, i.urlsFrom?.offset, i.urlsFrom?.limit, i.options?.maxConcurrency]);
    // Alone, the big run's first chunk had all 4. When it ended the small run was the only one in
    // line (the big run asks for its next chunk after giving this one back): it got all 4, and
    // started before the big run's second chunk.
    assert.deepEqual(starts[0], ['gov-big', 0, 2, 4]);
    assert.deepEqual(starts[1], ['gov-small', 0, 2, 4]);
    assert.deepEqual(starts.slice(2).map(([runId, offset]) => [runId, offset]), [['gov-big', 2], ['gov-big', 4]]);
    assert.equal(bigJobs, 3);
    // The small run asked once and waited in the workflow for the governor's notice: no activity
    // read the governor while it waited, and its history holds the notice.
    assert.deepEqual(stubs.inputs('askTeamShare').filter((i) => i.key.startsWith('gov-small/')).map((i) => [i.key, i.notify]), [['gov-small/batch/0', 'gov-small']]);
    assert.deepEqual(stubs.inputs('acquireTeamShare'), []);
    const smallHistory = await wt.env.client.workflow.getHandle('gov-small').fetchHistory();
    assert.equal((smallHistory.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'webdataShareGranted').length, 1);
    const status = await governorStatus(wt.env.client, team);
    assert.equal(status?.inUse, 0);
    assert.deepEqual(status?.tenants, []);
  });

  test('a run cancelled while its job runs gives its share back', async () => {
    const team = 'cancel';
    const running = gate();
    const stubs = siteStubs({
      ...governorActivities(team),
      startCrawl: () => ({ jobId: 'crawl-held', recovered: false }),
      followJob: async () => {
        running.open();
        // Runs until the run's cancellation reaches it (heartbeats carry it).
        const ctx = Context.current();
        for (;;) {
          ctx.heartbeat();
          await ctx.sleep(200);
        }
      },
      getJobSummary: (input) => summary(input.kind, input.jobId, 'scraping'),
    });
    await wt.with(stubs, async () => {
      const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'gov-cancel',
        args: [{ url: SITE, tenant: 't', governor: { teamConcurrency: 3, chunkPages: 100, leaseTtlMs: 60_000 }, stages: { batch: false, interact: false } }],
      });
      await reached('the crawl running', running);
      assert.equal((await governorStatus(wt.env.client, team))?.inUse, 3);
      await handle.cancel();
      const err = await wt.realTime.workflow.result(handle.workflowId).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
    });
    assert.equal(stubs.inputs('startCrawl')[0]?.body.maxConcurrency, 3);
    assert.deepEqual(stubs.inputs('cancelJob'), [{ kind: 'crawl', jobId: 'crawl-held' }]);
    const status = await governorStatus(wt.env.client, team);
    assert.equal(status?.inUse, 0);
  });

  test('a run cancelled while it waits in line leaves the line', async () => {
    const team = 'line';
    const to = target(team, 2);
    const holder = await firstAsk(() => acquireShare(to, { key: 'w/holder', tenant: 'a', want: 2 }));
    assert.equal(holder.granted && holder.share, 2);
    const stubs = siteStubs({ ...governorActivities(team) });
    await wt.with(stubs, async () => {
      const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'gov-line',
        // overcommit 1: the holder's 2 fill the team.
        args: [{ url: SITE, tenant: 't', governor: { teamConcurrency: 2, chunkPages: 100, leaseTtlMs: 60_000, overcommit: 1 }, stages: { batch: false, interact: false } }],
      });
      await until('the run in line', async () => (await governorStatus(wt.env.client, team))?.tenants.some((t) => t.tenant === 't' && t.waiting === 1) === true);
      await handle.cancel();
      const err = await wt.realTime.workflow.result(handle.workflowId).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, String(err));
    });
    assert.deepEqual(stubs.inputs('startCrawl'), []);
    assert.deepEqual(stubs.inputs('releaseTeamShare').map((i) => i.key), ['gov-line/crawl']);
    const status = await governorStatus(wt.env.client, team);
    assert.deepEqual(status?.tenants.map((t) => [t.tenant, t.held, t.waiting]), [['a', 2, 0]]);
    await releaseShare(to, 'w/holder');
  });
});
