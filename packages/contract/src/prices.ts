// The price table of the v2 API, in credits: the local service bills with it and the Temporal
// workflows' credit guard estimates with it. Pure data and arithmetic (safe in the workflow
// sandbox). Sources: reference section 8 and the contract notes ("Browser sessions and
// interact", "Crawl option semantics": a crawl `limit` is clamped to the remaining credits,
// one page per credit; self-hosted servers report `creditsUsed` equal to `completed`).
// The reference states no surcharge for any output format: every format costs the same.

/** Output formats of scrape, crawl, batch scrape and search (contract notes "Scrape"). */
export type PricedFormat =
  | 'markdown' | 'html' | 'rawHtml' | 'links' | 'images' | 'screenshot' | 'summary' | 'json' | 'changeTracking';

export const PRICES = {
  /** Credits per page scraped (scrape, crawl, batch scrape, scraped search results), by format. */
  pageByFormat: {
    markdown: 1, html: 1, rawHtml: 1, links: 1, images: 1, screenshot: 1, summary: 1, json: 1, changeTracking: 1,
  } satisfies Record<PricedFormat, number>,
  /** A page whose formats are not in the table (or none given: markdown). */
  page: 1,
  /** Per map call. */
  mapCall: 1,
  /** Search, per started block of 10 results; enterprise options replace the base rate. */
  searchPer10Results: { base: 2, anon: 2, zdr: 10 },
  /** Browser sessions and interact, per minute, prorated by the second, at least one minute. */
  browserPerMinute: { base: 2, withPrompt: 7 },
  /**
   * Agent and extract: each page they read is billed as a page, and each model call by the
   * tokens it used, one credit per started block of this many tokens (at least one credit).
   * Token usage routes count the same tokens; a plan's tokens are its credits times this.
   */
  modelTokensPerCredit: 1000,
} as const;

/** Credits one page costs with the given formats (strings or `{ type }` objects). */
export function pageCredits(formats?: ReadonlyArray<unknown>): number {
  const table: Readonly<Record<string, number>> = PRICES.pageByFormat;
  let price: number = PRICES.page;
  for (const format of formats ?? []) {
    const name = typeof format === 'string' ? format : (format as { type?: unknown } | null)?.type;
    if (typeof name === 'string' && Object.hasOwn(table, name)) price = Math.max(price, table[name]!);
  }
  return price;
}

/** Credits of `pages` scraped pages with the given formats. */
export function scrapeCredits(pages = 1, formats?: ReadonlyArray<unknown>): number {
  return pages * pageCredits(formats);
}

export function mapCredits(): number {
  return PRICES.mapCall;
}

/** Credits for one search: results billed per started block of 10, plus each scraped result. */
export function searchCredits(input: { results: number; enterprise?: ReadonlyArray<'anon' | 'zdr'>; scrapedPages?: number }): number {
  const rates = PRICES.searchPer10Results;
  const rate = Math.max(rates.base, ...(input.enterprise ?? []).map((option) => rates[option]));
  const blocks = Math.ceil(Math.max(0, input.results) / 10);
  return blocks * rate + scrapeCredits(input.scrapedPages ?? 0);
}

/** Credits per browser minute of a session or interact session. */
export function browserCreditsPerMinute(promptUsed = false): number {
  return promptUsed ? PRICES.browserPerMinute.withPrompt : PRICES.browserPerMinute.base;
}

/** Credits for a browser session of `durationMs`; rounded to cents of a credit. */
export function browserCredits(durationMs: number, opts: { promptUsed?: boolean } = {}): number {
  const perMinute = browserCreditsPerMinute(opts.promptUsed);
  const seconds = Math.max(60, Math.ceil(Math.max(0, durationMs) / 1000));
  return Math.round((perMinute * seconds * 100) / 60) / 100;
}

/** Credits of one model call of agent or extract that used `tokens` tokens. */
export function modelCallCredits(tokens: number): number {
  return Math.max(1, Math.ceil(Math.max(0, tokens) / PRICES.modelTokensPerCredit));
}
