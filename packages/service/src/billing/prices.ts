// Every price of the service, in one place (reference section 8, contract notes).
export const PRICES = {
  /** Per page scraped by scrape, crawl, batch scrape, and search results that are scraped. */
  scrapedPage: 1,
  /** Per map call. */
  mapCall: 1,
  /** Search, per started block of 10 results; enterprise options replace the base rate. */
  searchPer10Results: { base: 2, anon: 2, zdr: 10 },
  /** Browser sessions and interact, per minute, prorated by the second, at least one minute. */
  browserPerMinute: { base: 2, withPrompt: 7 },
} as const;

export function scrapeCredits(pages = 1): number {
  return pages * PRICES.scrapedPage;
}

export function mapCredits(): number {
  return PRICES.mapCall;
}

/** Credits for one search: results billed per started block of 10, plus each scraped result. */
export function searchCredits(input: { results: number; enterprise?: ReadonlyArray<'anon' | 'zdr'>; scrapedPages?: number }): number {
  const rates = PRICES.searchPer10Results;
  const rate = Math.max(
    rates.base,
    ...(input.enterprise ?? []).map((option) => rates[option]),
  );
  const blocks = Math.ceil(Math.max(0, input.results) / 10);
  return blocks * rate + scrapeCredits(input.scrapedPages ?? 0);
}

/** Credits for a browser session of `durationMs`; rounded to cents of a credit. */
export function browserCredits(durationMs: number, opts: { promptUsed?: boolean } = {}): number {
  const perMinute = opts.promptUsed ? PRICES.browserPerMinute.withPrompt : PRICES.browserPerMinute.base;
  const seconds = Math.max(60, Math.ceil(Math.max(0, durationMs) / 1000));
  return Math.round((perMinute * seconds * 100) / 60) / 100;
}
