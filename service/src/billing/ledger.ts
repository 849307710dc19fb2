// Credit ledger: every charge per team and API key, in memory; plans renew each month.
import type { CreditLedger, TeamConfig } from '../core/contract.js';
import { monthOf, monthsBetween } from './periods.js';

interface Charge {
  teamId: string;
  apiKey: string;
  credits: number;
  reason: string;
  jobId?: string;
  at: number;
}

export class MemoryCreditLedger implements CreditLedger {
  private readonly charges: Charge[] = [];

  constructor(
    private readonly teams: { byId(id: string): TeamConfig | undefined },
    private readonly now: () => number,
  ) {}

  private plan(teamId: string): number {
    return this.teams.byId(teamId)?.credits ?? 0;
  }

  private usedIn(teamId: string, start: number, end: number, apiKey?: string): number {
    let total = 0;
    for (const c of this.charges) {
      if (c.teamId !== teamId || c.at < start || c.at > end) continue;
      if (apiKey !== undefined && c.apiKey !== apiKey) continue;
      total += c.credits;
    }
    return roundCredits(total);
  }

  remaining(teamId: string): number {
    const month = monthOf(this.now());
    return Math.max(0, roundCredits(this.plan(teamId) - this.usedIn(teamId, month.start, month.end)));
  }

  charge(entry: { teamId: string; apiKey: string; credits: number; reason: string; jobId?: string; at?: number }): void {
    if (!(entry.credits > 0)) return;
    this.charges.push({ ...entry, at: entry.at ?? this.now() });
  }

  /** Month by month from the first charge to now; per key (every key of the team, and any charged key) with byApiKey. */
  periods(teamId: string, byApiKey: boolean): Array<{ startDate: string; endDate: string; apiKey?: string; totalCredits: number }> {
    const now = this.now();
    const own = this.charges.filter((c) => c.teamId === teamId);
    const first = own.reduce((min, c) => Math.min(min, c.at), now);
    const keys = [...new Set([...(this.teams.byId(teamId)?.apiKeys ?? []), ...own.map((c) => c.apiKey)])];
    const out: Array<{ startDate: string; endDate: string; apiKey?: string; totalCredits: number }> = [];
    for (const month of monthsBetween(first, now)) {
      const startDate = new Date(month.start).toISOString();
      const endDate = new Date(month.end).toISOString();
      if (!byApiKey) {
        out.push({ startDate, endDate, totalCredits: this.usedIn(teamId, month.start, month.end) });
        continue;
      }
      for (const apiKey of keys) {
        out.push({ startDate, endDate, apiKey, totalCredits: this.usedIn(teamId, month.start, month.end, apiKey) });
      }
    }
    return out;
  }

  usage(teamId: string): { remainingCredits: number; planCredits: number; billingPeriodStart: string; billingPeriodEnd: string } {
    const month = monthOf(this.now());
    return {
      remainingCredits: this.remaining(teamId),
      planCredits: this.plan(teamId),
      billingPeriodStart: new Date(month.start).toISOString(),
      billingPeriodEnd: new Date(month.end).toISOString(),
    };
  }

  /** Credits charged for one job so far (crawl/batch `creditsUsed`). */
  chargedForJob(jobId: string): number {
    return roundCredits(this.charges.filter((c) => c.jobId === jobId).reduce((sum, c) => sum + c.credits, 0));
  }
}

/** Browser billing is fractional; keep sums free of float noise. */
function roundCredits(value: number): number {
  return Math.round(value * 100) / 100;
}
