// Job routes of the local service: crawl, batch scrape and map.
import type { Router, ServiceContext } from '../core/contract.js';
import { registerMapRoute } from '../map/route.js';
import { registerBatchRoutes } from './batch-routes.js';
import { registerCrawlRoutes } from './crawl-routes.js';
import { JobsRuntime } from './runtime.js';
import { registerStatusRoutes } from './status-routes.js';

export function registerJobRoutes(router: Router, ctx: ServiceContext): void {
  const rt = new JobsRuntime(ctx);
  registerCrawlRoutes(router, rt);
  registerStatusRoutes(router, rt, { kind: 'crawl', base: '/v2/crawl', readGroup: 'crawl_status', writeGroup: 'crawl' });
  registerBatchRoutes(router, rt);
  registerStatusRoutes(router, rt, { kind: 'batch_scrape', base: '/v2/batch/scrape', readGroup: 'batch_status', writeGroup: 'batch_scrape' });
  registerMapRoute(router, rt);
}

export { JobsRuntime } from './runtime.js';
export { applyCrawlPrompt } from '../crawler/prompt.js';
