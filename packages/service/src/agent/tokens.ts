// Model tokens used by agent and extract, per team, month and API key: the records behind
// GET /v2/team/token-usage[/historical]. A plan's tokens are its credits times the tokens a
// credit buys (PRICES.modelTokensPerCredit).
import { PRICES } from 'webdata-contract';
import type { TokenUsagePeriod, TokenUsageResponse } from 'webdata-contract';
import { monthOf, monthsBetween } from '../billing/periods.js';
import type { TeamConfig } from '../core/teams.js';

export class TokenLedger {
  /** teamId → month start → apiKey → tokens. */
  private readonly used = new Map<string, Map<number, Map<string, number>>>();

  constructor(
    private readonly teams: { byId(id: string): TeamConfig | undefined },
    private readonly now: () => number,
  ) {}

  record(teamId: string, apiKey: string, tokens: number): void {
    if (!(tokens > 0)) return;
    const start = monthOf(this.now()).start;
    let months = this.used.get(teamId);
    if (!months) this.used.set(teamId, (months = new Map()));
    let keys = months.get(start);
    if (!keys) months.set(start, (keys = new Map()));
    keys.set(apiKey, (keys.get(apiKey) ?? 0) + tokens);
  }

  private total(keys: Map<string, number> | undefined): number {
    let sum = 0;
    for (const v of keys?.values() ?? []) sum += v;
    return sum;
  }

  usage(teamId: string): TokenUsageResponse['data'] {
    const month = monthOf(this.now());
    const planTokens = (this.teams.byId(teamId)?.credits ?? 0) * PRICES.modelTokensPerCredit;
    const used = this.total(this.used.get(teamId)?.get(month.start));
    return {
      remainingTokens: Math.max(0, planTokens - used),
      planTokens,
      billingPeriodStart: new Date(month.start).toISOString(),
      billingPeriodEnd: new Date(month.end).toISOString(),
    };
  }

  periods(teamId: string, byApiKey: boolean): TokenUsagePeriod[] {
    const now = this.now();
    const months = this.used.get(teamId) ?? new Map<number, Map<string, number>>();
    const keys = new Set(this.teams.byId(teamId)?.apiKeys ?? []);
    for (const m of months.values()) for (const k of m.keys()) keys.add(k);
    const out: TokenUsagePeriod[] = [];
    for (const month of monthsBetween(Math.min(now, ...months.keys()), now)) {
      const startDate = new Date(month.start).toISOString();
      const endDate = new Date(month.end).toISOString();
      const usage = months.get(month.start);
      if (!byApiKey) out.push({ startDate, endDate, totalTokens: this.total(usage) });
      else for (const apiKey of keys) out.push({ startDate, endDate, apiKey, totalTokens: usage?.get(apiKey) ?? 0 });
    }
    return out;
  }
}
