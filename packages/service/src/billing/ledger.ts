// Credit ledger: charges per team, month and API key, in memory; plans renew each month.
// Sums are kept as they come in, so `remaining` stays O(1) however many pages a crawl bills.
import type { CreditLedger } from '../core/credits.js';
import type { TeamConfig } from '../core/teams.js';
import { monthOf, monthsBetween } from './periods.js';

interface MonthUsage {
  total: number;
  byKey: Map<string, number>;
}

type Period = { startDate: string; endDate: string; apiKey?: string; totalCredits: number };

export class MemoryCreditLedger implements CreditLedger {
  /** teamId → month start (epoch ms) → usage. */
  private readonly usageByTeam = new Map<string, Map<number, MonthUsage>>();
  private readonly byJob = new Map<string, number>();

  constructor(
    private readonly teams: { byId(id: string): TeamConfig | undefined },
    private readonly now: () => number,
  ) {}

  private plan(teamId: string): number {
    return this.teams.byId(teamId)?.credits ?? 0;
  }

  private month(teamId: string, monthStart: number): MonthUsage | undefined {
    return this.usageByTeam.get(teamId)?.get(monthStart);
  }

  remaining(teamId: string): number {
    const used = this.month(teamId, monthOf(this.now()).start)?.total ?? 0;
    return Math.max(0, roundCredits(this.plan(teamId) - used));
  }

  charge(entry: { teamId: string; apiKey: string; credits: number; reason: string; jobId?: string; at?: number }): void {
    if (!(entry.credits > 0)) return;
    const start = monthOf(entry.at ?? this.now()).start;
    let months = this.usageByTeam.get(entry.teamId);
    if (!months) this.usageByTeam.set(entry.teamId, (months = new Map()));
    let usage = months.get(start);
    if (!usage) months.set(start, (usage = { total: 0, byKey: new Map() }));
    usage.total = roundCredits(usage.total + entry.credits);
    usage.byKey.set(entry.apiKey, roundCredits((usage.byKey.get(entry.apiKey) ?? 0) + entry.credits));
    if (entry.jobId !== undefined) this.byJob.set(entry.jobId, roundCredits((this.byJob.get(entry.jobId) ?? 0) + entry.credits));
  }

  /** Month by month from the first charged month to now; per key (every key of the team, and any charged key) with byApiKey. */
  periods(teamId: string, byApiKey: boolean): Period[] {
    const now = this.now();
    const months = this.usageByTeam.get(teamId) ?? new Map<number, MonthUsage>();
    const first = Math.min(now, ...months.keys());
    const keys = new Set(this.teams.byId(teamId)?.apiKeys ?? []);
    for (const usage of months.values()) for (const key of usage.byKey.keys()) keys.add(key);
    const out: Period[] = [];
    for (const month of monthsBetween(first, now)) {
      const startDate = new Date(month.start).toISOString();
      const endDate = new Date(month.end).toISOString();
      const usage = months.get(month.start);
      if (!byApiKey) {
        out.push({ startDate, endDate, totalCredits: usage?.total ?? 0 });
        continue;
      }
      for (const apiKey of keys) out.push({ startDate, endDate, apiKey, totalCredits: usage?.byKey.get(apiKey) ?? 0 });
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

  /** Credits charged for one job so far. */
  chargedForJob(jobId: string): number {
    return this.byJob.get(jobId) ?? 0;
  }
}

/** Browser billing is fractional; keep sums free of float noise. */
function roundCredits(value: number): number {
  return Math.round(value * 100) / 100;
}
