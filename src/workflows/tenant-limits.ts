// The run's side of its tenant's limits (shared/tenant-limit-rules.ts): a slot of the tenant's
// runs in flight, taken by the run's first read of its tenant's ledger (the same activity: no
// extra call) and given back when the run ends, also when it fails or is cancelled; and the wait
// for the tenant's credits per hour.
import { CancellationScope, condition, log } from '@temporalio/workflow';
import type { TenantUsage } from '../shared/tenant-ledger-rules.js';
import { reads } from './activities.js';
import type { PipelineRuntime } from './runtime.js';

/**
 * How soon a run in line asks again when no notice came (a holder that died is found by asking),
 * doubling up to SLOT_RECHECK_MAX_MS: a long wait adds few events, and asks stay well within
 * the ledger's LINE_TTL_MS (5 minutes), after which a place not asked for again is dropped.
 */
export const SLOT_RECHECK_MS = 60_000;
export const SLOT_RECHECK_MAX_MS = 240_000;
/** How often a run waiting for the hour window looks again when the window frees only as holds settle. */
export const HOUR_RECHECK_MS = 30_000;

const WAITING = 'waiting: ';

/** Shows why the run waits in its stage's note (UI details, `webdata status`), or clears it. */
function showWaiting(pipeline: PipelineRuntime, text: string | undefined): void {
  if (pipeline.stage === 'starting' || pipeline.stage === 'done' || pipeline.stage === 'support') return;
  const report = pipeline.report(pipeline.stage);
  if (text !== undefined) report.reason = `${WAITING}${text}`;
  else if (report.reason?.startsWith(WAITING)) report.reason = undefined;
  else return;
  pipeline.publish();
}

function ordinal(n: number): string {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${tail}`;
}

/** True when this read of the tenant's ledger should also take the run's slot. */
export function slotToTake(pipeline: PipelineRuntime): boolean {
  return pipeline.state.tenantSlot === undefined;
}

/**
 * Takes a slot of the tenant's runs in flight, waiting in line while the tenant is at its limit
 * (the ledger signals tenantBudgetChanged when a slot is free for this run; the run also asks
 * again after SLOT_RECHECK_MS, then less often). Returns the tenant's usage read in the same call.
 */
export async function takeSlot(pipeline: PipelineRuntime, tenant: string, except: string): Promise<TenantUsage> {
  pipeline.state.tenantSlot = 'asked';
  const run = pipeline.workflowId();
  let recheck = SLOT_RECHECK_MS;
  for (let waited = false; ; waited = true) {
    const wakes = pipeline.budgetWakes;
    const answer = await reads.acquireTenantSlot.executeWithOptions(
      { summary: waited ? `tenant ${tenant}: a run slot, again` : `tenant ${tenant}: a run slot and credits left` },
      [{ tenant, run, except }],
    );
    if (answer.granted) {
      pipeline.state.tenantSlot = 'held';
      if (waited) showWaiting(pipeline, undefined);
      return answer.usage;
    }
    showWaiting(pipeline, `tenant ${tenant} has ${answer.runsInFlight} of ${answer.limit ?? '-'} runs in flight; this run is ${ordinal(answer.position ?? 1)} in line`);
    const notified = await condition(() => pipeline.budgetWakes !== wakes, recheck);
    recheck = notified ? SLOT_RECHECK_MS : Math.min(recheck * 2, SLOT_RECHECK_MAX_MS);
  }
}

/** Gives the run's slot (or its place in line) back; outside any cancelled scope, as the run is ending. */
export async function releaseSlot(pipeline: PipelineRuntime): Promise<void> {
  const tenant = pipeline.state.config.tenant;
  if (tenant === undefined || pipeline.state.tenantSlot === undefined) return;
  const run = pipeline.workflowId();
  try {
    await CancellationScope.nonCancellable(() =>
      reads.releaseTenantSlot.executeWithOptions({ summary: `tenant ${tenant}: run slot given back` }, [{ tenant, run }]),
    );
  } catch (err) {
    // The run's outcome stands: a slot not given back is found closed by the next run refused one.
    log.warn('tenant slot not given back', { tenant, error: err instanceof Error ? err.message : String(err) });
  }
  pipeline.state.tenantSlot = undefined;
}

/** Notes on the run whether the tenant's credits per hour bind more than its monthly budget (for the wait). */
export function noteHour(pipeline: PipelineRuntime, tenant: string, usage: TenantUsage | null): number {
  const hourLeft = usage?.limits?.hourLeft ?? null;
  const monthLeft = usage?.left ?? null;
  if (hourLeft === null || usage?.limits?.creditsPerHour == null || (monthLeft !== null && monthLeft <= hourLeft)) {
    pipeline.tenantHour = undefined;
    return Number.POSITIVE_INFINITY;
  }
  const { creditsPerHour: perHour, creditsThisHour, freesAt } = usage.limits;
  pipeline.tenantHour = { tenant, perHour, creditsThisHour, hourLeft, ...(freesAt !== undefined ? { freesAt } : {}) };
  return hourLeft;
}

/**
 * Waits while the tenant's credits per hour leave less than `need` and its budgets would not:
 * a rate, not a budget, so the run waits for the window to free (the time it frees is in the
 * stage's note) rather than skipping, also without waitForRaiseMs. Returns the credits left after
 * the wait, or `left` at once when the hour is not what holds the run back.
 */
export async function awaitHourWindow(pipeline: PipelineRuntime, need: number, left: number, readLeft: () => Promise<number>): Promise<number> {
  // Only when the hour is what holds the run back (its own budget may be lower still).
  // More than the whole hour can never fit: not waited for (the stage is fitted or skipped as for a budget).
  const bound = () => pipeline.tenantHour !== undefined && pipeline.tenantHour.hourLeft < need && now >= pipeline.tenantHour.hourLeft && need <= pipeline.tenantHour.perHour;
  let now = left;
  if (!bound()) return left;
  while (now < need && bound() && pipeline.tenantHour !== undefined) {
    const { tenant, perHour, creditsThisHour, freesAt } = pipeline.tenantHour;
    const when = freesAt !== undefined ? `; the window frees from ${new Date(freesAt).toISOString().slice(11, 19)} UTC` : '; frees as its running jobs settle';
    showWaiting(pipeline, `tenant ${tenant} spent or holds ${creditsThisHour} of its ${perHour} credits per hour${when}`);
    const wakes = pipeline.budgetWakes;
    const wait = freesAt !== undefined ? Math.max(1_000, freesAt - Date.now() + 1_000) : HOUR_RECHECK_MS;
    await condition(() => pipeline.budgetWakes !== wakes, wait);
    now = await readLeft();
  }
  showWaiting(pipeline, undefined);
  return now;
}
