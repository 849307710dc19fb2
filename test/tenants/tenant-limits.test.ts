// Per-tenant limits on the full local stack (real service, Temporal, worker): (a) a tenant with
// at most 2 runs in flight starts 5 at once: the runs' own histories show that no more than 2 held
// a slot (and so spent) at any moment, the others waited in line, all 5 finish, and another
// tenant's run is not held up; (b) a tenant with 60 credits per hour starts 3 runs that would
// spend about 60 each: the service bills at most 66 (10%) for them, the first is fitted to the
// hour, the others wait for the window (the stage's note says so) until the test cancels them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { cancelPipeline, getProgress, startPipeline } from '../../src/client/pipeline.js';
import { ALL_TENANTS, setTenantLimits } from '../../src/client/tenants.js';
import { tenantUsage } from '../../src/coordination/tenant-ledger.js';
import { tenantDefaults } from '../../src/coordination/tenant-limits.js';
import { ledgerWorkflowId } from '../../src/shared/tenant-ledger-messages.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { recordHistory } from '../helpers/histories.js';
import { startStack, TEST_POLLING } from '../helpers/stack.js';

let stack: DevStack;
const stamp = Date.now();

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('tenant-limits', () => {
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.close();
  });

  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const crawlOnly = (tenant: string, limit: number): PipelineInput => ({
    url: `${stack.service.siteUrl as string}/`,
    tenant,
    crawl: { limit },
    polling: TEST_POLLING,
    stages: { map: false, select: false, batch: false, interact: false, support: false },
  });

  const start = (input: PipelineInput, id: string): Promise<WorkflowHandle> =>
    startPipeline(stack.temporal.client, input, { taskQueue: stack.taskQueue, workflowId: id });

  /** From a run's history (activity types and server times only): when its slot was granted and when it gave it back, and how often it asked. */
  async function slotSpan(handle: WorkflowHandle): Promise<{ asks: number; granted: number; released: number }> {
    const events = (await handle.fetchHistory()).events ?? [];
    const time = (e: (typeof events)[number]) => Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'acquireTenantSlot');
    const last = scheduled[scheduled.length - 1];
    const completed = events.find((e) => e.activityTaskCompletedEventAttributes && Number(e.activityTaskCompletedEventAttributes.scheduledEventId) === Number(last?.eventId));
    const release = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'releaseTenantSlot');
    assert.ok(completed && release, `${handle.workflowId}: a slot taken and given back`);
    return { asks: scheduled.length, granted: time(completed), released: time(release) };
  }

  test('maxRunsInFlight 2: of 5 runs started at once never more than 2 hold a slot; all finish; another tenant is not held up', async () => {
    const tenant = `slots-${stamp}`;
    const other = `other-${stamp}`;
    const set = await setTenantLimits(stack.temporal.client, tenant, { maxRunsInFlight: 2 }, { taskQueue: stack.taskQueue });
    assert.equal('limits' in set ? set.limits?.maxRunsInFlight : undefined, 2);
    const handles = await Promise.all([1, 2, 3, 4, 5].map((n) => start(crawlOnly(tenant, 8), `slots-${stamp}-${n}`)));
    // Some of the 5 wait in line: the ledger says so (a state that lasts until a slot frees).
    await until('runs in line on the ledger', async () => ((await tenantUsage(stack.temporal.client, tenant))?.limits?.waiting ?? 0) > 0);
    const otherRun = await start(crawlOnly(other, 8), `other-${stamp}`);
    const results = await Promise.all(handles.map((h) => h.result() as Promise<PipelineResult>));
    const otherResult = (await otherRun.result()) as PipelineResult;
    assert.deepEqual(results.map((r) => r.status), ['completed', 'completed', 'completed', 'completed', 'completed'], JSON.stringify(results.map((r) => r.stages.crawl)));
    assert.equal(otherResult.status, 'completed');

    // Every service call of a run lies between its slot's grant and its release (history times).
    const spans = await Promise.all(handles.map(slotSpan));
    const points = spans.flatMap((s) => [{ t: s.granted, d: 1 }, { t: s.released, d: -1 }]).sort((a, b) => a.t - b.t || a.d - b.d);
    let now = 0;
    let peak = 0;
    for (const p of points) peak = Math.max(peak, (now += p.d));
    const waited = spans.filter((s) => s.asks > 1).length;
    console.log(`tenant-limits (a): peak ${peak} runs holding a slot of 2; ${waited} of 5 waited in line; spans ${JSON.stringify(spans.map((s) => [s.asks, s.released - s.granted]))}`);
    assert.ok(peak <= 2, `${peak} runs held a slot at once`);
    assert.ok(waited >= 1, 'no run waited in line: the limit was never tested');
    const otherSpan = await slotSpan(otherRun);
    assert.equal(otherSpan.asks, 1, "the other tenant's run got its slot at its first ask");
    // What a slot costs a run that did not wait: its first ledger read is the ask (an activity it
    // made before too), and one activity gives it back at the end.
    const otherEvents = (await otherRun.fetchHistory()).events ?? [];
    const activities = otherEvents.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    console.log(`tenant-limits (a): the other tenant's run: ${otherEvents.length} history events, activities ${activities.join(', ')}`);
    const end = await tenantUsage(stack.temporal.client, tenant);
    assert.deepEqual([end?.limits?.runsInFlight, end?.limits?.waiting], [0, 0], 'every slot given back');
    // Replayed by test/replay (RECORD_HISTORIES=1 records them): a run that waited in line, and the ledger.
    const inLine = handles[spans.findIndex((s) => s.asks > 1)];
    await recordHistory(stack.temporal.client, inLine.workflowId, 'tenant-slot-waited');
    await recordHistory(stack.temporal.client, ledgerWorkflowId(tenant), 'tenant-ledger-slots');
  });

  test('creditsPerHour 60: runs that would spend about 60 each are billed at most 66 together; the first is fitted, the others wait', async () => {
    const tenant = `hour-${stamp}`;
    await setTenantLimits(stack.temporal.client, tenant, { creditsPerHour: 60 }, { taskQueue: stack.taskQueue });
    const before = (await stack.api.getCreditUsage()).data.remainingCredits;
    const handles = await Promise.all([1, 2, 3].map((n) => start(crawlOnly(tenant, 100), `hour-${stamp}-${n}`)));
    // Each run ends or waits for the hour (its crawl's note says why): both last until the test acts.
    const ended = new Map<string, PipelineResult>();
    for (const h of handles) void (h.result() as Promise<PipelineResult>).then((r) => ended.set(h.workflowId, r), () => undefined);
    const waiting = new Set<string>();
    await until('every run ended or waiting for the hour', async () => {
      for (const h of handles) {
        if (ended.has(h.workflowId) || waiting.has(h.workflowId)) continue;
        const reason = (await getProgress(stack.temporal.client, h.workflowId).catch(() => undefined))?.stages.crawl?.reason ?? '';
        if (/^waiting: tenant \S+ spent or holds \d+ of its 60 credits per hour/.test(reason)) waiting.add(h.workflowId);
      }
      return [...ended.keys(), ...waiting].length === handles.length && ended.size >= 1;
    });
    const note = (await getProgress(stack.temporal.client, [...waiting][0] ?? handles[0].workflowId)).stages.crawl?.reason;
    for (const id of waiting) await cancelPipeline(stack.temporal.client, id);
    const results = await Promise.all(handles.map((h) => (h.result() as Promise<PipelineResult>).catch(() => undefined)));
    const billed = before - (await stack.api.getCreditUsage()).data.remainingCredits;
    const completed = results.filter((r): r is PipelineResult => r !== undefined);
    const spent = completed.reduce((n, r) => n + r.credits.spent, 0);
    const usage = await tenantUsage(stack.temporal.client, tenant);
    console.log(`tenant-limits (b): billed ${billed} credits by the service for the tenant's runs (limit 60/h); ${completed.length} ran (${completed.map((r) => r.credits.spent).join(', ')} credits), ${waiting.size} waited and were cancelled; the ledger: ${usage?.limits?.creditsThisHour} this hour; a waiting run's note: ${note}`);
    assert.ok(billed <= 66, `billed ${billed} credits in the hour, over 60 + 10%`);
    assert.equal(spent, billed, 'the runs account for every credit billed');
    assert.ok(completed.some((r) => r.credits.events.some((e) => /crawl: limit clamped from 100 to \d+ \(budget\)/.test(e))), 'the first run was fitted to the hour');
    assert.ok(waiting.size >= 1, 'no run waited: the hour was never full');
    assert.equal(usage?.held, 0, 'no hold left behind');
    assert.equal(usage?.limits?.runsInFlight, 0, 'the cancelled runs gave their slots back');
    assert.equal(usage?.limits?.creditsThisHour, spent);
    // Replayed by test/replay: a run that waited for the hour and was cancelled while waiting.
    await recordHistory(stack.temporal.client, [...waiting][0], 'tenant-hour-waited');
  });

  test('a run that died holding a slot (terminated) does not hold it forever: the next run finds it closed', async () => {
    const tenant = `dead-${stamp}`;
    await setTenantLimits(stack.temporal.client, tenant, { maxRunsInFlight: 1 }, { taskQueue: stack.taskQueue });
    // The crawl's first page answers after 60 s: the run holds its slot, then is terminated (no release).
    const dead = await start({ ...crawlOnly(tenant, 3), url: `${stack.service.siteUrl as string}/slow?ms=60000` }, `dead-${stamp}`);
    await until('the slot held', async () => (await tenantUsage(stack.temporal.client, tenant))?.limits?.runsInFlight === 1);
    await dead.terminate('the test kills it holding a slot');
    const next = await start(crawlOnly(tenant, 3), `dead-next-${stamp}`);
    const result = (await next.result()) as PipelineResult;
    assert.equal(result.status, 'completed');
    assert.equal((await slotSpan(next)).asks, 1, 'granted at the first ask: the closed holder gave its slot back');
    assert.deepEqual((await tenantUsage(stack.temporal.client, tenant))?.limits?.runsInFlight, 0);
  });

  test('defaults for all tenants: a tenant without its own limits follows them; its own setting wins', async () => {
    const tenant = `follows-${stamp}`;
    try {
      await setTenantLimits(stack.temporal.client, ALL_TENANTS, { maxRunsInFlight: 7, creditsPerHour: 500 }, { taskQueue: stack.taskQueue });
      assert.deepEqual(await tenantDefaults(stack.temporal.client), { maxRunsInFlight: 7, creditsPerHour: 500 });
      const own = await setTenantLimits(stack.temporal.client, tenant, { creditsPerHour: 40 }, { taskQueue: stack.taskQueue });
      assert.ok('limits' in own);
      assert.deepEqual([own.limits?.maxRunsInFlight, own.limits?.creditsPerHour], [7, 40]);
      const back = await setTenantLimits(stack.temporal.client, tenant, { creditsPerHour: 'default' }, { taskQueue: stack.taskQueue });
      assert.ok('limits' in back);
      assert.equal(back.limits?.creditsPerHour, 500);
      // Enforced for a tenant whose ledger does not exist yet: its runs' activity passes the default.
      await setTenantLimits(stack.temporal.client, ALL_TENANTS, { maxRunsInFlight: 1 }, { taskQueue: stack.taskQueue });
      const fresh = `fresh-${stamp}`;
      // The first run's crawl starts at a page that answers after 8 s: it holds the one slot while the second asks.
      const first = await start({ ...crawlOnly(fresh, 2), url: `${stack.service.siteUrl as string}/slow?ms=8000` }, `fresh-${stamp}-1`);
      await until('the first run holding the slot', async () => (await tenantUsage(stack.temporal.client, fresh))?.limits?.runsInFlight === 1);
      const second = await start(crawlOnly(fresh, 5), `fresh-${stamp}-2`);
      await until('the second run in line', async () => (await tenantUsage(stack.temporal.client, fresh))?.limits?.waiting === 1);
      const runs = [first, second];
      const done = await Promise.all(runs.map((h) => h.result() as Promise<PipelineResult>));
      assert.deepEqual(done.map((r) => r.status), ['completed', 'completed']);
      const [a, b] = await Promise.all(runs.map(slotSpan));
      assert.ok(a.released <= b.granted || b.released <= a.granted, `the two runs held a slot at once: ${JSON.stringify([a, b])}`);
      assert.deepEqual([a.asks > 1, b.asks > 1], [false, true], 'the second waited for the first');
    } finally {
      await setTenantLimits(stack.temporal.client, ALL_TENANTS, { maxRunsInFlight: null, creditsPerHour: null }, { taskQueue: stack.taskQueue });
    }
  });
});
