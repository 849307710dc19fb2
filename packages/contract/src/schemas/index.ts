// Request schemas of the v2 API. Shared by the client (validation before sending) and the
// local service (validation of incoming bodies, 400 with `details` from formatIssues).
export * from './common.js';
export * from './issues.js';
export * from './factories.js';
export * from './webhook.js';
export * from './scrape.js';
export * from './crawl.js';
export * from './batch.js';
export * from './interact.js';
export * from './map.js';
export * from './search.js';
export * from './browser.js';
export * from './support.js';
export * from './team.js';
export * from './agent.js';
export * from './parse.js';
export * from './monitor.js';
