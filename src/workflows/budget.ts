// Budget waits: a stage that does not fit waits (up to `waitForRaiseMs`) for a raiseBudget update.
import { condition } from '@temporalio/workflow';
import { reads } from './activities.js';
import { remaining } from './credit-guard.js';
import type { PipelineRuntime } from './runtime.js';
import { ledgerTenant, tenantCreditsLeft, TENANT_RECHECK_MS } from './tenant-budget.js';
import { awaitHourWindow } from './tenant-limits.js';

/** Credits this run may still spend: its budget, its tenant's monthly budget, the team's monthly cap. */
export async function creditsLeft(pipeline: PipelineRuntime): Promise<number> {
  return Math.min(await runCreditsLeft(pipeline), await tenantCreditsLeft(pipeline));
}

async function runCreditsLeft(pipeline: PipelineRuntime): Promise<number> {
  const cap = pipeline.state.config.budget?.monthlyCap;
  if (cap === undefined) return remaining(pipeline.state.credits);
  const snapshot = await reads.creditSnapshot.executeWithOptions({ summary: 'monthly credit usage' }, []);
  if (snapshot.notAvailable?.length) {
    const event = `monthly cap: ${snapshot.notAvailable.join(', ')} not available on this service; only this run's spending and the remaining credits are counted`;
    if (!pipeline.state.credits.events.includes(event)) pipeline.state.credits.events.push(event);
    return Math.min(remaining(pipeline.state.credits, cap), snapshot.remainingCredits);
  }
  return remaining(pipeline.state.credits, Math.max(0, cap - snapshot.usedThisMonth));
}

/** True when at least `need` credits are (or become, within the wait) available. */
export async function awaitCredits(pipeline: PipelineRuntime, need: number): Promise<boolean> {
  return (await creditsAvailable(pipeline, need)) !== null;
}

/**
 * The credits left, read once at least `need` are (or become, within the wait) available; null
 * when they do not. A caller that sizes a job by what is left uses this read rather than a second
 * one: with a tenant every read is a round trip to the tenant's ledger workflow.
 */
export async function creditsAvailable(pipeline: PipelineRuntime, need: number): Promise<number | null> {
  const left = await awaitHourWindow(pipeline, need, await creditsLeft(pipeline), () => creditsLeft(pipeline));
  if (left >= need) return left;
  const waitMs = pipeline.state.config.budget?.waitForRaiseMs ?? 0;
  if (waitMs <= 0) return null;
  pipeline.status = 'running';
  pipeline.publish();
  let wakesBefore = pipeline.budgetWakes;
  // A tenant's budget is set on its ledger; setTenantBudget then signals the tenant's running
  // pipelines (tenantBudgetChanged), found through visibility. A run visibility has not listed
  // yet, or a raise made another way, is still seen: the ledger is re-read now and then.
  const recheckMs = ledgerTenant(pipeline) === undefined ? undefined : TENANT_RECHECK_MS;
  // Wake on every raise and re-check (the monthly cap needs a fresh read).
  let deadlineLeft = waitMs;
  while (deadlineLeft > 0) {
    const started = Date.now();
    const raised = await condition(() => pipeline.budgetWakes !== wakesBefore, Math.min(deadlineLeft, recheckMs ?? deadlineLeft));
    if (!raised && recheckMs === undefined) return null;
    // Wait for the next raise after this one: an insufficient raise must not spin.
    wakesBefore = pipeline.budgetWakes;
    const now = await creditsLeft(pipeline);
    if (now >= need) return now;
    deadlineLeft -= Date.now() - started;
  }
  return null;
}
