export { registerScrapeRoutes } from './routes.js';
export { MemoryScrapeRecords } from './records.js';
