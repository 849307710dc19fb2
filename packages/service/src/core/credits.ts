// The credit ledger every priced operation charges (prices: webdata-contract prices.ts).

/** Credits: one ledger for every priced operation (prices live in billing/prices.ts). */
export interface CreditLedger {
  remaining(teamId: string): number;
  /** Records a charge; never throws for lack of credits (callers check `remaining` first). */
  charge(entry: { teamId: string; apiKey: string; credits: number; reason: string; jobId?: string; /** epoch ms; default now */ at?: number }): void;
  periods(teamId: string, byApiKey: boolean): Array<{ startDate: string; endDate: string; apiKey?: string; totalCredits: number }>;
  usage(teamId: string): { remainingCredits: number; planCredits: number; billingPeriodStart: string; billingPeriodEnd: string };
}
