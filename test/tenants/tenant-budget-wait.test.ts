// The run budget's strategies against a tenant's budget, on the full local stack: a run with
// waitForRaiseMs waits while its tenant has nothing left and goes on when the tenant's budget is
// raised on its ledger (setTenantBudget signals it); a cancelled run releases its stage's hold at
// once (not after the TTL).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { cancelPipeline, startPipeline } from '../../src/client/pipeline.js';
import { runningPipelinesQuery } from '../../src/client/tenant-runs.js';
import { setTenantBudget } from '../../src/client/tenants.js';
import { tenantUsage } from '../../src/coordination/tenant-ledger.js';
import { tenantBudgetChangedSignal } from '../../src/workflows/definitions.js';
import { startStack } from '../helpers/stack.js';
import { runCliProcess } from '../helpers/cli.js';

let stack: DevStack;
const tenants: string[] = [];
// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('tenant-budget-wait', () => {
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.close();
  });

  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 240_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  test('waitForRaiseMs: a run waits while its tenant has no credits left and goes on once the ledger is raised', async () => {
    const tenant = `wait-${Date.now()}`;
    tenants.push(tenant);
    await setTenantBudget(stack.temporal.client, tenant, 0, { taskQueue: stack.taskQueue });
    const site = stack.service.siteUrl as string;
    const handle = await startPipeline(stack.temporal.client, {
      url: `${site}/`,
      tenant,
      select: { include: ['^/docs'] },
      crawl: { limit: 3, maxDiscoveryDepth: 1 },
      stages: { batch: false, interact: false, support: false },
      budget: { credits: 1_000, waitForRaiseMs: 600_000 },
    }, { taskQueue: stack.taskQueue, workflowId: `tenant-wait-${Date.now()}` });
    // Waiting: the run's timer for its next look at the ledger is in its history.
    await until('the run waiting for credits', async () => {
      const history = await handle.fetchHistory();
      return (history.events ?? []).some((e) => e.timerStartedEventAttributes);
    });
    // setTenantBudget finds the tenant's running pipelines through visibility: wait until it lists this one.
    await until('the run listed by its tenant', async () => (await stack.temporal.client.workflow.count(runningPipelinesQuery(tenant))).count > 0);
    await setTenantBudget(stack.temporal.client, tenant, 10, { taskQueue: stack.taskQueue });
    const result = await handle.result();
    // The raise reached the run as a signal, not at its next look at the ledger 30 s on.
    const history = await handle.fetchHistory();
    assert.ok((history.events ?? []).some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === tenantBudgetChangedSignal.name), 'tenantBudgetChanged in the history');
    assert.equal(result.status, 'completed', JSON.stringify(result.stages));
    assert.equal(result.stages.map?.status, 'completed', 'map ran after the raise');
    assert.ok(result.credits.spent > 0 && result.credits.spent <= 10, `spent ${result.credits.spent} of the tenant's 10`);
    const usage = await tenantUsage(stack.temporal.client, tenant);
    assert.equal(usage?.used, result.credits.spent);
    assert.equal(usage?.held, 0);
  });

  test('a cancelled run releases its crawl hold on the tenant ledger at once', async () => {
    const tenant = `cancel-${Date.now()}`;
    tenants.push(tenant);
    await setTenantBudget(stack.temporal.client, tenant, 100, { taskQueue: stack.taskQueue });
    const site = stack.service.siteUrl as string;
    const id = `tenant-cancel-${Date.now()}`;
    // The crawl's first page answers after 60 s: the run is mid-crawl, holding its worst case.
    await startPipeline(stack.temporal.client, {
      url: `${site}/slow?ms=60000`,
      tenant,
      crawl: { limit: 5 },
      stages: { map: false, select: false, batch: false, interact: false, support: false },
    }, { taskQueue: stack.taskQueue, workflowId: id });
    await until('the crawl hold on the ledger', async () => ((await tenantUsage(stack.temporal.client, tenant))?.held ?? 0) > 0);
    await cancelPipeline(stack.temporal.client, id);
    await until('the hold released', async () => (await tenantUsage(stack.temporal.client, tenant))?.held === 0);
    const usage = await tenantUsage(stack.temporal.client, tenant);
    assert.ok((usage?.used ?? -1) >= 0 && (usage?.used ?? 101) <= 100);
  });

  test('webdata tenants and webdata status --tenant show the ledgers and the runs', async () => {
    const env = { TEMPORAL_ADDRESS: stack.temporal.address, TEMPORAL_NAMESPACE: stack.temporal.namespace };
    // A process of its own, awaited without blocking: this process hosts the worker that answers the CLI's queries.
    const cli = (args: string[]) => runCliProcess(args, { env });
    // Visibility lists ledgers and runs a moment after they start: wait for both tenants.
    let listed: Array<{ tenant: string; budget: number | null; held: number }> = [];
    await until('both ledgers listed', async () => {
      const r = await cli(['tenants', '--json']);
      assert.equal(r.code, 0, r.err);
      listed = JSON.parse(r.out) as typeof listed;
      return tenants.every((t) => listed.some((u) => u.tenant === t));
    }, 120_000);
    assert.deepEqual(listed.filter((u) => tenants.includes(u.tenant)).map((u) => [u.tenant, u.budget, u.held]), [[tenants[1], 100, 0], [tenants[0], 10, 0]]);
    const table = await cli(['tenants']);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, new RegExp(`^${tenants[0]}\\s+\\d{4}-\\d{2}\\s+\\d+\\s+0\\s+10\\s+\\d+\\s+\\d+/\\S+\\s+\\d+/\\S+$`, 'm'), table.out);
    await until('the run listed under its tenant', async () => {
      const r = await cli(['status', '--tenant', tenants[0], '--json']);
      assert.equal(r.code, 0, r.err);
      return (JSON.parse(r.out) as Array<{ status: string }>).some((run) => run.status === 'COMPLETED');
    }, 120_000);
  });
});
