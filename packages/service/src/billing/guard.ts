// The 402 check callers run before spending.
import type { CreditLedger } from '../core/credits.js';
import type { TeamConfig } from '../core/teams.js';
import { insufficientCredits } from '../http/errors.js';

/** Throws 402 unless the team has at least `needed` credits left (default: any). */
export function requireCredits(ledger: CreditLedger, team: TeamConfig, needed = 1): void {
  const remaining = ledger.remaining(team.id);
  if (remaining <= 0 || remaining < needed) throw insufficientCredits(needed, remaining);
}
