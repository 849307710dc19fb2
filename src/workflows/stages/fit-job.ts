// Fits a job's worst case into the run's budget before it starts: how many pages it may
// take (clamp strategy) and the credits after which the budget watch cancels it.
import { awaitCredits, creditsLeft } from '../budget.js';
import { fitUnits } from '../credit-guard.js';
import type { PipelineRuntime } from '../runtime.js';

export type JobFit =
  | { kind: 'run'; units: number; allowance: number; tight: boolean }
  | { kind: 'skip'; reason: string };

export async function fitJob(pipeline: PipelineRuntime, what: string, wanted: number, perPage: number): Promise<JobFit> {
  const { config, credits } = pipeline.state;
  const strategy = config.budget?.strategy ?? 'clamp';
  if (credits.budget === null && config.budget?.monthlyCap === undefined) {
    return { kind: 'run', units: wanted, allowance: Number.POSITIVE_INFINITY, tight: false };
  }
  if (!(await awaitCredits(pipeline, perPage))) return { kind: 'skip', reason: `budget: ${perPage} credits needed for one page` };
  const left = await creditsLeft(pipeline);
  // `stop` runs the job as configured and polls tightly so the watch cancels it in time.
  if (strategy === 'stop') return { kind: 'run', units: wanted, allowance: left, tight: true };
  const fit = fitUnits(wanted, perPage, left);
  if (fit.kind === 'none') return { kind: 'skip', reason: 'budget: nothing left' };
  if (fit.kind === 'clamped') credits.events.push(`${what} clamped from ${fit.from} to ${fit.units} (budget)`);
  return { kind: 'run', units: fit.units, allowance: left, tight: false };
}
