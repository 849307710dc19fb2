// The HTTP scrape engine: real fetches (undici) on loopback by default, HTML → markdown/html/links/
// images/metadata, PDF text, and a maxAge/minAge cache. Browser- or model-only options answer 400.
export {
  createHttpScrapeEngine, HttpScrapeEngine, DEFAULT_USER_AGENT, MOBILE_USER_AGENT, type HttpScrapeEngineOptions,
} from './engine.js';
export { normalizeOptions, browserRequired, type NormalizedOptions, type OutputFormat } from './options.js';
export { checkDestination, createLookup, isLoopbackAddress, isLocalhostName } from './destination.js';
export { convertHtml } from './html.js';
export { htmlToMarkdown } from './markdown.js';
export { BASE64_IMAGE_PLACEHOLDER } from './text.js';
export { registerScrapeRoutes } from './routes.js';
export { MemoryScrapeRecords } from './records.js';
export { withModelFormats, modelFormatsOf, assertModelFormatsServed } from './model-formats.js';
