// The native pass (native-pass.ts) answers exactly as the tree path (html.ts convertOnTree) or
// not at all: on every markdown fixture, every page of the demo site and every page of the
// main-content corpus, under several option sets, its whole result equals the tree path's. It
// must also answer the pages it was built for (the rich 15 KB page, most demo pages), or it would
// be a no-op. It needs mdream's native engine (see native-mdream.ts); elsewhere it is skipped.
import './native-mdream.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { corpusPages } from '../../../test/compat/main-content/corpus.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { normalizeOptions } from '../src/scrape/index.js';
import { convertOnTree } from '../src/scrape/html.js';
import { markdownEngine } from '../src/scrape/markdown-engine.js';
import { convertNatively } from '../src/scrape/native-pass.js';

const DIR = new URL('./fixtures/markdown/', import.meta.url);
const PAGE = 'http://127.0.0.1:9/docs/page';
const opts = (raw: Record<string, unknown>) => normalizeOptions(raw, { timeoutMs: 1000, maxAgeMs: 0 });
const OPTION_SETS = {
  markdown: opts({ formats: ['markdown'] }),
  'markdown, links and images': opts({ formats: ['markdown', 'links', 'images'] }),
  'whole body': opts({ formats: ['markdown'], onlyMainContent: false }),
  'base64 images kept': opts({ formats: ['markdown'], removeBase64Images: false }),
};
const skip = markdownEngine.convertPage ? false : `the native engine is not loaded (mdream ${markdownEngine.name} runs)`;

/** Compares the native pass with the tree path on one page under every option set; returns the sets it answered. */
function compare(name: string, html: string, url = PAGE): string[] {
  const answered: string[] = [];
  for (const [set, options] of Object.entries(OPTION_SETS)) {
    const fast = convertNatively(html, url, options);
    if (!fast) continue;
    assert.deepEqual(fast, convertOnTree(html, url, options), `${name}, ${set}`);
    answered.push(set);
  }
  return answered;
}

describe('native pass', { skip }, () => {
  let site: DemoSite;
  before(async () => {
    site = await startDemoSite({ pages: 40 });
  });
  after(() => site.close());

  it('equals the tree path on every markdown fixture, and answers the rich page', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.html')).sort();
    const answered = files.filter((file) => compare(file, readFileSync(new URL(file, DIR), 'utf8')).includes('markdown'));
    assert.ok(answered.includes('rich-15kb.html'), `answered: ${answered.join(', ')}`);
  });

  it('equals the tree path on every page of the main-content corpus', () => {
    let answered = 0;
    const pages = corpusPages();
    for (const page of pages) if (compare(page.path, page.html, `http://127.0.0.10:8080${page.path}`).length > 0) answered++;
    assert.ok(answered > 0, `answered ${answered} of ${pages.length}`);
  });

  it('equals the tree path on every page of the demo site, and answers most', async () => {
    const seen = new Set<string>([`${site.url}/`]);
    const queue = [`${site.url}/`];
    let pages = 0;
    let answered = 0;
    while (queue.length > 0) {
      const url = queue.shift()!;
      const res = await fetch(url);
      const text = await res.text();
      if (!(res.headers.get('content-type') ?? '').startsWith('text/html')) continue;
      pages++;
      if (compare(url, text, url).includes('markdown')) answered++;
      for (const link of convertOnTree(text, url, opts({ formats: ['links'] })).links) {
        const next = new URL(link);
        next.hash = '';
        if (next.origin === site.url && !seen.has(next.href) && !/\/(slow|big)/.test(next.pathname)) {
          seen.add(next.href);
          queue.push(next.href);
        }
      }
    }
    assert.ok(pages >= 40, `pages: ${pages}`);
    assert.ok(answered >= pages * 0.5, `answered natively: ${answered} of ${pages}`);
  });
});
