// webdata-temporal: durable pipelines for the Web Data Extraction Service API v2 on Temporal.
//
//   import { startPipeline } from 'webdata-temporal';
//   const handle = await startPipeline(client, { url: 'https://example.com/', select: { include: ['^/docs'] } });
//   const result = await handle.result();
//
// Run the workflows and activities with `webdata worker`, createWebDataWorker or webDataPlugin
// (`webdata-temporal/worker`). The HTTP client alone is `webdata-temporal/api` (or `webdata-client`).
export * from './client/index.js';
export { SEARCH_ATTRIBUTES, STAGE, TARGET_HOST, PAGES, CREDITS, OUTCOME, TENANT } from './search-attributes.js';
export { WebDataApiError, isWebDataApiError, type WebDataErrorKind } from 'webdata-client';
