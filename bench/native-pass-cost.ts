// CPU per page of the markdown conversion, side by side in one process (issue 46): the one pass
// (one-pass.ts, htmlparser2 events), the native pass (native-pass.ts: a prescan of the tags, then one
// call to mdream's native engine on the body with the removals cut out), convertHtml as the
// service runs it (the native pass where it answers, else the one pass or the tree), and mdream's
// native engine alone on the raw page, without options and with the reference's removal list as
// its filter (what the native pass does not use). On the rich 15 KB page and averaged over the
// demo site's pages. Prints, asserts nothing.
//
//   node --conditions=webdata-source --import tsx bench/native-pass-cost.ts [--rounds=2000]
// First: point mdream at the cached native binding on Node 20 (see bench/service-throughput.ts).
import '../packages/service/test/native-mdream.js';
import { readFileSync } from 'node:fs';
import { demoPages } from '../test/compat/main-content/corpus.js';
import { convertHtml, normalizeOptions } from '../packages/service/src/scrape/index.js';
import { markdownEngine } from '../packages/service/src/scrape/markdown-engine.js';
import { NON_MAIN_SELECTORS } from '../packages/service/src/scrape/main-content.js';
import { convertNatively } from '../packages/service/src/scrape/native-pass.js';
import { convertInOnePass } from '../packages/service/src/scrape/one-pass.js';
import { printTable } from './lib/table.js';

const rounds = Number(/^--rounds=(\d+)$/.exec(process.argv[2] ?? '')?.[1] ?? 2000);
const options = normalizeOptions({ formats: ['markdown'] }, { timeoutMs: 1000, maxAgeMs: 0 });
const rich = readFileSync(new URL('../packages/service/test/fixtures/markdown/rich-15kb.html', import.meta.url), 'utf8');
const sets = {
  'rich 15 KB page': [{ html: rich, url: 'http://127.0.0.1:9/p/7' }],
  'demo site pages': demoPages().map((p) => ({ html: p.html, url: `http://127.0.0.1:9${p.path}` })),
};
if (!markdownEngine.convertPage) throw new Error(`the native engine is not loaded (mdream ${markdownEngine.name} runs)`);
const { htmlToMarkdown } = await import('mdream');
const filter = { exclude: [...NON_MAIN_SELECTORS, 'head'] };
const ways: Record<string, (html: string, url: string) => unknown> = {
  'one pass': (html, url) => convertInOnePass(html, url, options),
  'native pass (null where it declines)': (html, url) => convertNatively(html, url, options),
  'convertHtml (native, else one pass)': (html, url) => convertHtml(html, url, options),
  'mdream native alone, no options': (html) => markdownEngine.convert(html),
  'mdream native alone, with the removal list as filter': (html) => htmlToMarkdown(html, { filter }),
};

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
console.log(`mdream ${markdownEngine.name}; ${rounds} conversions per way and set, after a warm-up`);
const rows: string[][] = [];
for (const [set, pages] of Object.entries(sets)) {
  const answered = pages.filter((p) => convertNatively(p.html, p.url, options)).length;
  rows.push([set, `${pages.length} pages, the native pass answers ${answered}`, '']);
  for (const [way, fn] of Object.entries(ways)) {
    for (let i = 0; i < 300; i++) fn(pages[i % pages.length].html, pages[i % pages.length].url);
    const start = cpuMs();
    for (let i = 0; i < rounds; i++) fn(pages[i % pages.length].html, pages[i % pages.length].url);
    rows.push(['', way, `${((cpuMs() - start) / rounds).toFixed(3)} ms`]);
  }
}
printTable('Markdown conversion, CPU per page', ['pages', 'conversion', 'CPU per page'], rows);
