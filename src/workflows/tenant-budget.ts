// The run's side of its tenant's monthly budget (workflows/tenant-ledger.ts): what is left for
// the tenant counts in every budget check, a job's worst case is reserved before it starts, and
// each stage's actual credits are settled when it ends. Runs with a tenant only.
import { CancellationScope } from '@temporalio/workflow';
import { reads } from './activities.js';
import type { PipelineRuntime } from './runtime.js';
import type { Reservation } from '../shared/tenant-ledger-rules.js';
import { noteHour, slotToTake, takeSlot } from './tenant-limits.js';

/** How often a run waiting for credits re-reads its tenant's ledger when no tenantBudgetChanged signal came. */
export const TENANT_RECHECK_MS = 30_000;

/** The run's tenant when its credits count against the tenant's ledger. */
export function ledgerTenant(pipeline: PipelineRuntime): string | undefined {
  return pipeline.state.config.tenant;
}

/** The ledger key of a stage of this run: one hold and one settlement per stage. */
export function stageKey(pipeline: PipelineRuntime, stage: string): string {
  return `${pipeline.workflowId()}/${stage}`;
}

/**
 * Credits the tenant has left for this run's current stage this month and this hour (Infinity:
 * no tenant budget or limit). The run's first read also takes its slot of the tenant's runs in
 * flight (tenant-limits.ts), waiting in line when the tenant is at its limit.
 */
export async function tenantCreditsLeft(pipeline: PipelineRuntime): Promise<number> {
  const tenant = ledgerTenant(pipeline);
  if (tenant === undefined) return Number.POSITIVE_INFINITY;
  const except = stageKey(pipeline, String(pipeline.stage));
  const usage = slotToTake(pipeline)
    ? await takeSlot(pipeline, tenant, except)
    : await reads.tenantCredits.executeWithOptions({ summary: `tenant ${tenant}: credits left this month` }, [{ tenant, except }]);
  return Math.min(usage?.left ?? Number.POSITIVE_INFINITY, noteHour(pipeline, tenant, usage));
}

/** Holds `credits` for the current stage; returns what the tenant had left when refused. */
export async function reserveForStage(pipeline: PipelineRuntime, credits: number): Promise<{ granted: true } | { granted: false; left: number; hourBound?: Reservation['hourBound'] }> {
  const tenant = ledgerTenant(pipeline);
  if (tenant === undefined || !Number.isFinite(credits)) return { granted: true };
  const held = await reads.reserveTenantCredits.executeWithOptions({ summary: `tenant ${tenant}: reserve ${credits} credits` }, [{ tenant, key: stageKey(pipeline, String(pipeline.stage)), credits }]);
  return held.granted ? { granted: true } : { granted: false, left: held.left ?? 0, ...(held.hourBound ? { hourBound: held.hourBound } : {}) };
}

/** Records what the stage spent on the tenant's ledger and releases its hold. */
export async function settleStage(pipeline: PipelineRuntime, stage: string, credits: number): Promise<void> {
  const tenant = ledgerTenant(pipeline);
  if (tenant === undefined) return;
  await reads.settleTenantCredits.executeWithOptions({ summary: `tenant ${tenant}: ${stage} spent ${credits} credits` }, [{ tenant, key: stageKey(pipeline, stage), credits: Math.ceil(credits) }]);
}

/** Settles the stages a cancellation stopped, outside the cancelled scope (the run is ending). */
export async function settleCancelledStages(pipeline: PipelineRuntime, stages: Array<[string, number]>): Promise<void> {
  if (stages.length === 0 || ledgerTenant(pipeline) === undefined) return;
  await CancellationScope.nonCancellable(async () => {
    for (const [stage, credits] of stages) await settleStage(pipeline, stage, credits);
  });
}
