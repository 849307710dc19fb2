// The short test files of this folder in one process (scripts/test-files.mjs runs this file in
// place of them): each file alone pays 2-3 s of CPU for Node, the TypeScript loader and the
// service's imports. The files that drive Chromium or wait out real timeouts run alone, beside
// this one (temp-files also sets TMPDIR for its process). A new file here must be imported below
// or named alone; each still runs alone with `node --test`.
// alone: browser-engine.test.ts
// alone: browser-sdk.test.ts
// alone: browser-sessions.test.ts
// alone: interact.test.ts
// alone: support-ask.test.ts
// alone: support-crawl.test.ts
// alone: temp-files.test.ts
// First: mdream reads where its native binding is when first imported (markdown-engines.test.ts).
import './native-mdream.js';
import './agent-extract.test.js';
import './batch-append.test.js';
import './batch.test.js';
import './billing.test.js';
import './crawl-large.test.js';
import './crawl-options.test.js';
import './crawl-prompt.test.js';
import './crawl-semantics.test.js';
import './crawl.test.js';
import './demo-site-revision.test.js';
import './demo-site.test.js';
import './faults.test.js';
import './firecrawl-sdk-jobs.test.js';
import './firecrawl-sdk.test.js';
import './html-buffer.test.js';
import './imitate-oss.test.js';
import './interact-prompt.test.js';
import './linked-signal.test.js';
import './map-discovery.test.js';
import './map-flaky.test.js';
import './map-order.test.js';
import './map.test.js';
import './markdown-engines.test.js';
import './markdown-quality.test.js';
import './model-formats.test.js';
import './monitor-judge.test.js';
import './monitor.test.js';
import './native-pass.test.js';
import './one-pass.test.js';
import './output-tail.test.js';
import './page-fetch-reset.test.js';
import './parse.test.js';
import './path-filter.test.js';
import './platform.test.js';
import './queue-status.test.js';
import './scrape-abort.test.js';
import './scrape-engine.test.js';
import './scrape-html.test.js';
import './search.test.js';
import './stall-fault.test.js';
import './support-rephrase.test.js';
import './webhooks.test.js';
