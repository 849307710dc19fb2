// Fits a job's worst case into the run's budget before it starts: how many pages it may
// take (clamp strategy) and the credits after which the budget watch cancels it.
import { creditsAvailable, creditsLeft } from '../budget.js';
import { fitUnits } from '../credit-guard.js';
import type { PipelineRuntime } from '../runtime.js';
import { ledgerTenant, reserveForStage } from '../tenant-budget.js';
import { awaitHourWindow } from '../tenant-limits.js';

export type JobFit =
  | { kind: 'run'; units: number; allowance: number; tight: boolean }
  | { kind: 'skip'; reason: string };

export async function fitJob(pipeline: PipelineRuntime, what: string, wanted: number, perPage: number): Promise<JobFit> {
  const { config, credits } = pipeline.state;
  const strategy = config.budget?.strategy ?? 'clamp';
  const tenant = ledgerTenant(pipeline);
  if (credits.budget === null && config.budget?.monthlyCap === undefined && tenant === undefined) {
    return { kind: 'run', units: wanted, allowance: Number.POSITIVE_INFINITY, tight: false };
  }
  const available = await creditsAvailable(pipeline, perPage);
  if (available === null) return { kind: 'skip', reason: `budget: ${perPage} credits needed for one page` };
  // Sized by the read that found credits available (no second ledger round trip).
  let left = available;
  // The tenant's ledger holds the job's worst case before it starts; another run of the tenant
  // may have taken credits since the read: fit again to what the ledger says is left, once.
  for (let attempt = 0; ; attempt += 1) {
    const decided = decide(pipeline, what, wanted, perPage, left, strategy);
    if (decided.kind === 'skip' || tenant === undefined) return decided;
    const held = await reserveForStage(pipeline, decided.kind === 'run' && decided.tight ? decided.allowance : decided.units * perPage);
    if (held.granted) return decided;
    // The tenant's hour is full (other runs took it since the read): wait for it to free, then fit again.
    if (held.hourBound) {
      if (held.left < perPage) {
        pipeline.tenantHour = { tenant, perHour: held.hourBound.perHour, creditsThisHour: held.hourBound.perHour - held.left, hourLeft: held.left, ...(held.hourBound.freesAt !== undefined ? { freesAt: held.hourBound.freesAt } : {}) };
        left = await awaitHourWindow(pipeline, perPage, held.left, () => creditsLeft(pipeline));
        if (left < perPage) return { kind: 'skip', reason: `budget: ${perPage} credits needed for one page` };
      } else {
        left = Math.min(left, held.left);
      }
      attempt = -1;
      continue;
    }
    if (attempt > 0) return { kind: 'skip', reason: `tenant budget: ${held.left} credits left this month for tenant ${tenant}` };
    left = Math.min(left, held.left);
  }
}

function decide(pipeline: PipelineRuntime, what: string, wanted: number, perPage: number, left: number, strategy: 'clamp' | 'stop'): JobFit {
  // `stop` runs the job as configured and polls tightly so the watch cancels it in time.
  if (strategy === 'stop') return { kind: 'run', units: wanted, allowance: left, tight: true };
  const fit = fitUnits(wanted, perPage, left);
  if (fit.kind === 'none') return { kind: 'skip', reason: 'budget: nothing left' };
  if (fit.kind === 'clamped') pipeline.state.credits.events.push(`${what} clamped from ${fit.from} to ${fit.units} (budget)`);
  return { kind: 'run', units: fit.units, allowance: left, tight: false };
}
