// The price table lives in webdata-contract (prices.ts), shared with the workflows' credit
// guard; the service bills with it through these names.
export { PRICES, pageCredits, scrapeCredits, mapCredits, searchCredits, browserCredits } from 'webdata-contract';
