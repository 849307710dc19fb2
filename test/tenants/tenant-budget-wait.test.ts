// The run budget's strategies against a tenant's budget, on the full local stack: a run with
// waitForRaiseMs waits while its tenant has nothing left and goes on when the tenant's budget is
// raised on its ledger; a cancelled run releases its stage's hold at once (not after the TTL).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { cancelPipeline, startPipeline } from '../../src/client/pipeline.js';
import { setTenantBudget, tenantUsage } from '../../src/client/tenants.js';
import { startStack } from '../helpers/stack.js';

let stack: DevStack;
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
  await setTenantBudget(stack.temporal.client, tenant, 10, { taskQueue: stack.taskQueue });
  const result = await handle.result();
  assert.equal(result.status, 'completed', JSON.stringify(result.stages));
  assert.equal(result.stages.map?.status, 'completed', 'map ran after the raise');
  assert.ok(result.credits.spent > 0 && result.credits.spent <= 10, `spent ${result.credits.spent} of the tenant's 10`);
  const usage = await tenantUsage(stack.temporal.client, tenant);
  assert.equal(usage?.used, result.credits.spent);
  assert.equal(usage?.held, 0);
});

test('a cancelled run releases its crawl hold on the tenant ledger at once', async () => {
  const tenant = `cancel-${Date.now()}`;
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
