export { PRICES, scrapeCredits, mapCredits, searchCredits, browserCredits } from './prices.js';
export { MemoryCreditLedger } from './ledger.js';
export { requireCredits } from './guard.js';
export { monthOf, monthsBetween, type MonthPeriod } from './periods.js';
