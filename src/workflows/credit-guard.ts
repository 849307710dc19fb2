// The run's credit budget: fit each spending step's worst case into what is left.
// Pure functions over the state, so the rules are unit-testable outside a workflow.
import { browserCreditsPerMinute, pageCredits } from 'webdata-contract/rules';
import type { CreditReport } from './state.js';
import type { StageName } from './input.js';

/** Credits a page costs on the service for the given scrape options (the contract's price table). */
export function creditsPerPage(scrapeOptions: { formats?: unknown[] } | undefined): number {
  return pageCredits(scrapeOptions?.formats);
}

/** Worst-case credits of an interact follow-up on one page: its scrape, then the session's minutes. */
export function interactWorstCase(timeoutSec: number, prompt: boolean): number {
  const minutes = Math.max(1, Math.ceil(timeoutSec / 60) + 1);
  return pageCredits() + minutes * browserCreditsPerMinute(prompt);
}

export function remaining(credits: CreditReport, monthlyLeft: number | null = null): number {
  const budgetLeft = credits.budget === null ? Number.POSITIVE_INFINITY : credits.budget - credits.spent;
  return Math.max(0, Math.min(budgetLeft, monthlyLeft ?? Number.POSITIVE_INFINITY));
}

export type Fit =
  | { kind: 'fits'; units: number }
  | { kind: 'clamped'; units: number; from: number }
  | { kind: 'none' };

/** How many units (pages) of `unitCost` fit into `left` credits, out of `wanted`. */
export function fitUnits(wanted: number, unitCost: number, left: number): Fit {
  if (!Number.isFinite(left)) return { kind: 'fits', units: wanted };
  const affordable = Math.floor(left / unitCost);
  if (affordable >= wanted) return { kind: 'fits', units: wanted };
  if (affordable <= 0) return { kind: 'none' };
  return { kind: 'clamped', units: affordable, from: wanted };
}

export function spend(credits: CreditReport, stage: StageName, amount: number): void {
  if (amount <= 0) return;
  credits.spent += amount;
  credits.byStage[stage] = (credits.byStage[stage] ?? 0) + amount;
}
