// The run's side of its tenant's monthly budget (workflows/tenant-ledger.ts): what is left for
// the tenant counts in every budget check, a job's worst case is reserved before it starts, and
// each stage's actual credits are settled when it ends. Runs with a tenant only; runs recorded
// before tenant budgets existed replay without (patched).
import { CancellationScope, patched } from '@temporalio/workflow';
import { reads } from './activities.js';
import type { PipelineRuntime } from './runtime.js';

export const TENANT_BUDGET = 'tenant-budget';
/** How often a run waiting for credits re-reads its tenant's ledger (a raise there sends no signal). */
export const TENANT_RECHECK_MS = 30_000;

/** The run's tenant when its credits count against the tenant's ledger. */
export function ledgerTenant(rt: PipelineRuntime): string | undefined {
  const tenant = rt.state.config.tenant;
  if (tenant === undefined || !patched(TENANT_BUDGET)) return undefined;
  return tenant;
}

/** The ledger key of a stage of this run: one hold and one settlement per stage. */
export function stageKey(rt: PipelineRuntime, stage: string): string {
  return `${rt.workflowId()}/${stage}`;
}

/** Credits the tenant has left for this run's current stage (Infinity: no tenant budget). */
export async function tenantCreditsLeft(rt: PipelineRuntime): Promise<number> {
  const tenant = ledgerTenant(rt);
  if (tenant === undefined) return Number.POSITIVE_INFINITY;
  const usage = await reads.tenantCredits.executeWithOptions({ summary: `tenant ${tenant}: credits left this month` }, [{ tenant, except: stageKey(rt, String(rt.stage)) }]);
  return usage?.left ?? Number.POSITIVE_INFINITY;
}

/** Holds `credits` for the current stage; returns what the tenant had left when refused. */
export async function reserveForStage(rt: PipelineRuntime, credits: number): Promise<{ granted: true } | { granted: false; left: number }> {
  const tenant = ledgerTenant(rt);
  if (tenant === undefined || !Number.isFinite(credits)) return { granted: true };
  const held = await reads.reserveTenantCredits.executeWithOptions({ summary: `tenant ${tenant}: reserve ${credits} credits` }, [{ tenant, key: stageKey(rt, String(rt.stage)), credits }]);
  return held.granted ? { granted: true } : { granted: false, left: held.left ?? 0 };
}

/** Records what the stage spent on the tenant's ledger and releases its hold. */
export async function settleStage(rt: PipelineRuntime, stage: string, credits: number): Promise<void> {
  const tenant = ledgerTenant(rt);
  if (tenant === undefined) return;
  await reads.settleTenantCredits.executeWithOptions({ summary: `tenant ${tenant}: ${stage} spent ${credits} credits` }, [{ tenant, key: stageKey(rt, stage), credits: Math.ceil(credits) }]);
}

/** Settles the stages a cancellation stopped, outside the cancelled scope (the run is ending). */
export async function settleCancelledStages(rt: PipelineRuntime, stages: Array<[string, number]>): Promise<void> {
  if (stages.length === 0 || ledgerTenant(rt) === undefined) return;
  await CancellationScope.nonCancellable(async () => {
    for (const [stage, credits] of stages) await settleStage(rt, stage, credits);
  });
}
