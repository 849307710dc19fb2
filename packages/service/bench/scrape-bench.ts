// Scrape engine throughput on a 2000-page demo site: the same pages fetched raw, parsed only,
// and fully scraped (markdown, html, links), side by side in one run. Prints ratios and per-page
// CPU time, not pass/fail. Run: node --import tsx service/bench/scrape-bench.ts [pages] [concurrency]
import { randomUUID } from 'node:crypto';
import { load } from 'cheerio';
import { request } from 'undici';
import type { TeamConfig } from '../src/core/teams.js';
import { startDemoSite } from '../src/demo-site/index.js';
import { createHttpScrapeEngine, convertHtml, normalizeOptions } from '../src/scrape/index.js';

const pages = Number(process.argv[2] ?? 2000);
const concurrency = Number(process.argv[3] ?? 4);
const team = { id: 'bench' } as TeamConfig;

async function timed(label: string, urls: string[], work: (url: string) => Promise<unknown>): Promise<number> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < urls.length) await work(urls[next++]);
  }));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(`${label.padEnd(28)} ${ms.toFixed(0).padStart(6)} ms wall  ${(urls.length / (ms / 1000)).toFixed(0).padStart(5)} pages/s  ${(cpuMs / urls.length).toFixed(2)} ms CPU/page`);
  return ms;
}

const site = await startDemoSite({ pages });
const urls = site.manifest.entries.filter((e) => e.host === 'main' && e.kind === 'html' && e.status === 200).map((e) => e.url);
const bodies = new Map<string, string>();
console.log(`${urls.length} HTML pages, concurrency ${concurrency}`);

const fetchMs = await timed('fetch only (undici)', urls, async (url) => {
  const res = await request(url);
  bodies.set(url, await res.body.text());
});
const opts = normalizeOptions({ formats: ['markdown', 'html', 'links'] }, { timeoutMs: 60_000, maxAgeMs: 0 });
const parseMs = await timed('parse only (cheerio)', urls, async (url) => {
  load(bodies.get(url)!);
});
const convertMs = await timed('convert (no network)', urls, async (url) => {
  convertHtml(bodies.get(url)!, url, opts);
});
const engine = createHttpScrapeEngine({ defaultMaxAgeMs: 0 });
const scrapeMs = await timed('engine.scrape (full)', urls, async (url) => {
  await engine.scrape(url, { formats: ['markdown', 'html', 'links'] }, { scrapeId: randomUUID(), team });
});
const linksMs = await timed('engine.scrape (rawHtml)', urls, async (url) => {
  await engine.scrape(url, { formats: ['rawHtml'] }, { scrapeId: randomUUID(), team });
});
const cached = createHttpScrapeEngine();
for (const url of urls) await cached.scrape(url, {}, { scrapeId: randomUUID(), team });
const hitMs = await timed('engine.scrape (cache hit)', urls, async (url) => {
  await cached.scrape(url, {}, { scrapeId: randomUUID(), team });
});

console.log('\nratios (lower is cheaper):');
console.log(`  parse / fetch          ${(parseMs / fetchMs).toFixed(2)}`);
console.log(`  convert / fetch        ${(convertMs / fetchMs).toFixed(2)}`);
console.log(`  full scrape / fetch    ${(scrapeMs / fetchMs).toFixed(2)}`);
console.log(`  rawHtml scrape / full  ${(linksMs / scrapeMs).toFixed(2)}`);
console.log(`  cache hit / full       ${(hitMs / scrapeMs).toFixed(3)}`);

await Promise.all([engine.close(), cached.close()]);
await site.close();
