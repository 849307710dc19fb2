// Every HTML page of a demo site, found as a crawler finds them: from the home page through the
// links each page holds (the slow and big pages left out). The conversion tests compare their
// paths on each page.
import type { DemoSite } from '../src/demo-site/index.js';
import { convertOnTree } from '../src/scrape/html.js';
import { normalizeOptions } from '../src/scrape/index.js';

const LINKS_ONLY = normalizeOptions({ formats: ['links'] }, { timeoutMs: 1000, maxAgeMs: 0 });

/** Calls `visit` with each HTML page's URL and text, in the order they are found. */
export async function eachDemoPage(site: DemoSite, visit: (url: string, html: string) => void): Promise<void> {
  const seen = new Set<string>([`${site.url}/`]);
  const queue = [`${site.url}/`];
  while (queue.length > 0) {
    const url = queue.shift()!;
    const res = await fetch(url);
    const text = await res.text();
    if (!(res.headers.get('content-type') ?? '').startsWith('text/html')) continue;
    visit(url, text);
    for (const link of convertOnTree(text, url, LINKS_ONLY).links) {
      const next = new URL(link);
      next.hash = '';
      if (next.origin === site.url && !seen.has(next.href) && !/\/(slow|big)/.test(next.pathname)) {
        seen.add(next.href);
        queue.push(next.href);
      }
    }
  }
}
