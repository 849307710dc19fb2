// Search (POST /v2/search) over the service's index of scraped pages.
export { registerSearchRoutes, searchIndexOf } from './routes.js';
export { SearchIndex, MAX_INDEXED_PAGES } from './store.js';
export { seedSite, demoSeedUrls, type SeedOptions } from './seed.js';
export { parseQuery, type ParsedQuery } from './query.js';
export { parseTbs, type TimeFilter } from './tbs.js';
export { inCategory, type Category } from './categories.js';
export { pageFromDocument, normalizeDate } from './extract.js';
export type { IndexedPage, IndexedImage } from './page.js';

import type { ServiceContext } from '../core/service.js';
import { searchIndexOf } from './routes.js';
import { seedSite, type SeedOptions } from './seed.js';

/**
 * Indexes a site in the background now; searches wait for it (up to their timeout). Call after
 * the route modules are registered.
 */
export function indexSiteInBackground(ctx: ServiceContext, opts: SeedOptions): Promise<number> {
  const index = searchIndexOf(ctx);
  const work = seedSite(ctx, index, { ...opts, signal: closingSignal(ctx, opts.signal) });
  index.track(work);
  return work;
}

/**
 * Indexes a site (the demo site at startup) when the first search arrives, which waits for it
 * (up to its timeout). Pages scraped before then are indexed as they are scraped.
 */
export function indexSiteOnFirstSearch(ctx: ServiceContext, opts: SeedOptions): void {
  const index = searchIndexOf(ctx);
  const signal = closingSignal(ctx, opts.signal);
  index.defer(() => seedSite(ctx, index, { ...opts, signal }));
}

/** Aborts when the service closes (or when `signal` does). */
function closingSignal(ctx: ServiceContext, signal: AbortSignal | undefined): AbortSignal {
  const controller = new AbortController();
  ctx.onClose(() => controller.abort(new Error('service closing')));
  return signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
}
