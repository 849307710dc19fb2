// Browser-minute billing (reference 8): the price table lives in billing/prices.ts; the
// worst case (the whole ttl) is what the 402 check before a session starts uses.
import { browserCredits } from '../billing/prices.js';

export function sessionCredits(durationMs: number, promptUsed: boolean): number {
  return browserCredits(durationMs, { promptUsed });
}

export function worstCaseCredits(ttlSec: number, promptUsed: boolean): number {
  return browserCredits(ttlSec * 1000, { promptUsed });
}
