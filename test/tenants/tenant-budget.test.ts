// A tenant's monthly budget across runs, on the full local stack: the tenant's ledger workflow
// holds each job's worst case before it starts and settles what it cost, so a second run of the
// same tenant gets only what the first left; `webdata tenants` data (tenantUsage) shows it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { setTenantBudget } from '../../src/client/tenants.js';
import { tenantUsage } from '../../src/coordination/tenant-ledger.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { recordHistory } from '../helpers/histories.js';
import { runToEnd, startStack } from '../helpers/stack.js';

let stack: DevStack;
// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('tenant-budget', () => {
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.close();
  });

  const tenant = `budget-${Date.now()}`;
  const input = (): PipelineInput => ({
    url: `${stack.service.siteUrl as string}/`,
    tenant,
    select: { include: ['^/docs'] },
    crawl: { limit: 8, maxDiscoveryDepth: 2 },
    stages: { batch: false, interact: false, support: false },
  });

  test('two runs of one tenant share its monthly budget: the second is clamped to what the first left', async () => {
    const set = await setTenantBudget(stack.temporal.client, tenant, 12, { taskQueue: stack.taskQueue });
    assert.deepEqual({ budget: set.budget, used: set.used, left: set.left }, { budget: 12, used: 0, left: 12 });

    const first = await runToEnd(stack, input());
    assert.equal(first.result.status, 'completed', JSON.stringify(first.result.stages));
    const spentFirst = first.result.credits.spent;
    assert.ok(spentFirst > 0 && spentFirst <= 12, `first run spent ${spentFirst}`);
    const afterFirst = await tenantUsage(stack.temporal.client, tenant);
    assert.equal(afterFirst?.used, spentFirst, 'the ledger settled what the first run spent');
    assert.equal(afterFirst?.held, 0, 'no hold left behind');

    const second = await runToEnd(stack, input());
    const spentSecond = second.result.credits.spent;
    assert.ok(spentFirst + spentSecond <= 12, `both runs spent ${spentFirst} + ${spentSecond}, over the tenant's 12`);
    const crawl = second.result.stages.crawl;
    assert.ok(
      crawl?.status === 'skipped' || second.result.credits.events.some((e) => /clamped/.test(e)),
      `the second run's crawl was neither clamped nor skipped: ${JSON.stringify({ crawl, events: second.result.credits.events })}`,
    );
    // Replayed by test/replay (RECORD_HISTORIES=1 records it): the tenant's reserve, settle and clamp.
    await recordHistory(stack.temporal.client, second.id, 'tenant-budget');
    const end = await tenantUsage(stack.temporal.client, tenant);
    assert.equal(end?.used, spentFirst + spentSecond);
    assert.equal(end?.held, 0);
    assert.equal(end?.left, 12 - spentFirst - spentSecond);
  });

  test('a run without a tenant has no ledger and is not limited by one', async () => {
    const { tenant: _none, ...plain } = input();
    const run = await runToEnd(stack, plain);
    assert.equal(run.result.status, 'completed');
    assert.equal(await tenantUsage(stack.temporal.client, 'default'), null);
  });
});
