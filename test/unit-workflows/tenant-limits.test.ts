// A run's side of its tenant's limits with stubbed activities on the time-skipping test server:
// a run refused a slot waits in line (its map's note says so) and goes on when the ledger's
// notice (tenantBudgetChanged) comes, giving the slot back at the end; a run whose tenant's hour
// is full waits for the window to free, also without waitForRaiseMs, and then runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getProgress } from '../../src/client/pipeline.js';
import type { TenantUsage } from '../../src/shared/tenant-ledger-rules.js';
import { tenantBudgetChangedSignal } from '../../src/workflows/definitions.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { crawlInput, siteStubs } from './pipeline-stubs.js';

let wt: WorkflowTests;
before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

async function until(what: string, check: () => Promise<boolean>, deadlineMs = 120_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const usage = (limits?: TenantUsage['limits']): TenantUsage => ({ tenant: 'acme', month: '2026-11', budget: null, used: 0, held: 0, left: null, ...(limits ? { limits } : {}) });
const hour = (creditsThisHour: number, freesAt?: number): TenantUsage['limits'] => ({
  maxRunsInFlight: null, creditsPerHour: 10, override: { creditsPerHour: 10 }, defaults: { maxRunsInFlight: null, creditsPerHour: null },
  runsInFlight: 1, waiting: 0, creditsThisHour, hourLeft: Math.max(0, 10 - creditsThisHour), ...(freesAt !== undefined ? { freesAt } : {}),
});

describe('tenant-limits', () => {
  test('a run refused a slot waits in line, goes on at the ledger notice, and gives its slot back at the end', async () => {
    let free = false;
    const stubs = siteStubs({
      acquireTenantSlot: () => (free
        ? { granted: true, runsInFlight: 2, limit: 2, usage: usage() }
        : { granted: false, runsInFlight: 2, limit: 2, position: 1, holders: ['a', 'b'], usage: usage() }),
      releaseTenantSlot: () => undefined,
      tenantCredits: () => usage(),
      reserveTenantCredits: () => ({ granted: true, left: null }),
      settleTenantCredits: () => usage(),
    });
    const result = await wt.with(stubs, async () => {
      const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'slot-in-line',
        args: [crawlInput({ tenant: 'acme' })],
      });
      await until('the run in line', async () => /^waiting: tenant acme has 2 of 2 runs in flight; this run is 1st in line$/.test((await getProgress(wt.env.client, handle.workflowId)).stages.map?.reason ?? ''));
      free = true;
      await handle.signal(tenantBudgetChangedSignal);
      // Time stays still (the real-time client's result() does not unlock it): the run's minute
      // look cannot fire, so only the notice can have let it in.
      await until('map started', async () => stubs.inputs('mapToStore').length > 0);
      return wt.realTime.workflow.result<typeof webDataPipeline>(handle.workflowId);
    });
    assert.equal(result.status, 'completed');
    assert.equal(result.stages.map?.reason, undefined, 'the waiting note is gone once the run goes on');
    assert.equal(stubs.inputs('acquireTenantSlot').length, 2);
    assert.deepEqual(stubs.inputs('releaseTenantSlot'), [{ tenant: 'acme', run: 'slot-in-line' }]);
  });

  test("the tenant's hour is full: the run waits until the window frees (no waitForRaiseMs), then runs", async () => {
    let freesAt = 0;
    let reads = 0;
    const stubs = siteStubs({
      acquireTenantSlot: () => ({ granted: true, runsInFlight: 1, limit: null, usage: usage(hour(10, freesAt)) }),
      releaseTenantSlot: () => undefined,
      tenantCredits: () => (++reads, usage(hour(0))),
      reserveTenantCredits: () => ({ granted: true, left: null }),
      settleTenantCredits: () => usage(hour(0)),
    });
    freesAt = (await wt.env.currentTimeMs()) + 20 * 60_000;
    const result = await wt.with(stubs, async () => {
      const handle = await wt.env.client.workflow.start<typeof webDataPipeline>('webDataPipeline', {
        taskQueue: wt.taskQueue,
        workflowId: 'hour-full',
        args: [crawlInput({ tenant: 'acme' })],
      });
      await until('the run waiting for the hour', async () => /^waiting: tenant acme spent or holds 10 of its 10 credits per hour; the window frees from \d\d:\d\d:\d\d UTC$/.test((await getProgress(wt.env.client, handle.workflowId)).stages.map?.reason ?? ''));
      assert.equal(stubs.inputs('mapToStore').length, 0);
      return handle.result();
    });
    assert.equal(result.status, 'completed');
    assert.equal(result.stages.map?.status, 'completed', 'waited, not skipped');
    assert.equal(reads >= 1, true);
    assert.ok((await wt.env.currentTimeMs()) >= freesAt, 'the run went on once the window freed');
  });
});
