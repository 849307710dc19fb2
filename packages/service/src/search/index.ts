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
 * Indexes a site (the demo site at startup) in the background; searches wait for it (up to
 * their timeout). Call after the route modules are registered.
 */
export function indexSiteInBackground(ctx: ServiceContext, opts: SeedOptions): Promise<number> {
  const index = searchIndexOf(ctx);
  const controller = new AbortController();
  ctx.onClose(() => controller.abort(new Error('service closing')));
  const signal = opts.signal ? AbortSignal.any([opts.signal, controller.signal]) : controller.signal;
  const work = seedSite(ctx, index, { ...opts, signal });
  index.track(work);
  return work;
}
