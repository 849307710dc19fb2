// The demo site: a deterministic generated website for tests and the embedded stack.
export { startDemoSite, type DemoSite, type DemoSiteOptions, type DemoRequest } from './server.js';
export {
  buildManifest, NAMED_ROBOTS_AGENT, DEFAULT_PAGES, DEFAULT_SEED,
  type SiteManifest, type ManifestEntry, type ManifestOptions,
} from './manifest.js';
export {
  EXTERNAL_ORIGIN, ALIAS_HOSTNAME, REVISED_PATHS, addedPostPath, type PageKind, type Section, type HostKind,
} from './layout.js';
export { DEMO_JS_TEXT, BASE64_PIXEL, docsTableRows, itemTableRows, itemPrice } from './render.js';
export { DEMO_PDF_TEXT, DEMO_PDF_TITLE } from './pdf.js';
