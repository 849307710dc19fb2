// Credits held for pages in flight, so concurrent pages (and jobs) of a team cannot
// spend past its remaining credits: the ledger is charged only once a page succeeds.
import type { CreditLedger } from '../core/credits.js';

export class CreditGate {
  private readonly held = new Map<string, number>();

  constructor(private readonly ledger: CreditLedger) {}

  /** Remaining credits minus those held for pages in flight. */
  available(teamId: string): number {
    return this.ledger.remaining(teamId) - (this.held.get(teamId) ?? 0);
  }

  /** Holds `credits` for one page; false when the team cannot afford it. */
  hold(teamId: string, credits: number): boolean {
    if (this.available(teamId) < credits) return false;
    this.held.set(teamId, (this.held.get(teamId) ?? 0) + credits);
    return true;
  }

  release(teamId: string, credits: number): void {
    const left = (this.held.get(teamId) ?? 0) - credits;
    if (left > 0) this.held.set(teamId, left);
    else this.held.delete(teamId);
  }
}
