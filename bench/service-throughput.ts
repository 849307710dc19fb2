// Local service throughput: pages per second of a crawl and of a batch scrape at maxConcurrency
// 1, 4 and 16, next to two anchors over the same URLs at the same concurrency: a plain undici
// fetch loop (bytes only: no robots.txt, sitemaps, link discovery or markdown) and a loop that
// fetches and converts each page with the service's own converter (convertHtml, markdown format,
// in the event loop of this process, no threads), on two sites: the demo site
// (small pages) and a site of 15 KB pages rich in tables, lists and code, where HTML to markdown
// is most of the work. Job times are the service's own (createdAt → completedAt), so polling
// does not blur them. Everything runs in this process (service, its conversion threads, both
// sites and the loops), measured side by side. Prints medians and ratios, never pass/fail; the
// rich site's line sets the issue's targets (#46, which tightened #27's) beside what it measured.
//
//   node --import tsx bench/service-throughput.ts [--pages=1000] [--rich-pages=1000] [--runs=3] [--concurrency=1,4,16]
//   (or BENCH_PAGES, BENCH_RICH_PAGES, BENCH_RUNS, BENCH_CONCURRENCY; BENCH_TIMEOUT_S bounds the
//   whole run)
// First: on Node 20 npm leaves out mdream's platform package (its `engines` asks for 22), so point
// mdream at the binding scripts/ensure-native-mdream.sh cached, and measure the engine a Node 22
// install runs. The engine line below says which one ran.
import '../packages/service/test/native-mdream.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { WebDataClient } from '../packages/client/src/client.js';
import { convertHtml, normalizeOptions } from '../packages/service/src/scrape/index.js';
import { describeMarkdownEngine } from '../packages/service/src/scrape/markdown-engine.js';
import type { JobStatusResponse } from '../packages/contract/src/types.js';
import { startCountingService } from './lib/counting-service.js';
import { intOption, listOption, runBench, timeoutMs, type Closers } from './lib/harness.js';
import { fixed, int, medianOf, ratio, seconds } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { allowPrivateHosts } from '../test/helpers/private-hosts.js';

type Mode = 'crawl' | 'batch scrape' | 'undici fetch loop' | 'fetch and convert loop';
const MODES: Mode[] = ['crawl', 'batch scrape', 'undici fetch loop', 'fetch and convert loop'];

interface Sample {
  mode: Mode;
  concurrency: number;
  pages: number;
  ms: number;
  /** CPU of this process (service + demo site + client) per page. */
  cpuMsPerPage: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** `richPages` 0 measures the demo site only. */
export async function serviceThroughput(
  closers: Closers, log: (line: string) => void, pages: number, runs: number, levels: number[], richPages = 0,
): Promise<void> {
  const svc = await startCountingService({ pages, concurrency: Math.max(...levels) });
  closers.add('service', () => svc.close());
  // The crawls name the demo site on 127.0.0.1: allowed by its host:port.
  allowPrivateHosts(svc.siteUrl);
  const api = new WebDataClient({ apiKey: svc.apiKey, baseUrl: svc.url });
  closers.add('api client', () => api.close());

  log(describeMarkdownEngine());
  log(`demo site of ${pages} content pages; warm-up crawl for the URL list`);
  const start = `${svc.siteUrl}/`;
  const warm = await runJob(api, 'crawl', () => api.startCrawl({ url: start, limit: 100_000, maxConcurrency: Math.max(...levels) }));
  const urls = await jobUrls(api, warm.id);
  const summaries = [report(`demo site of ${int(pages)} content pages`, await measure(api, log, start, urls, runs, levels), urls.length, runs)];

  if (richPages > 0) {
    const site = await startRichSite(richPages);
    closers.add('rich site', () => site.close());
    // Crawled on 127.0.0.1 too: allowed by its host:port, like the demo site, for a client made
    // after (a client reads the allowance when it is made).
    allowPrivateHosts(svc.siteUrl, site.url);
    const richApi = new WebDataClient({ apiKey: svc.apiKey, baseUrl: svc.url });
    closers.add('rich site client', () => richApi.close());
    const richUrls = Array.from({ length: richPages }, (_, i) => `${site.url}/p/${i + 1}`);
    log(`rich site of ${richPages} pages of about ${fixed(site.pageBytes / 1024, 0)} KB; warm-up crawl`);
    await runJob(richApi, 'crawl', () => richApi.startCrawl({ url: `${site.url}/`, limit: 100_000, maxConcurrency: Math.max(...levels) }));
    summaries.push(report(`rich site of ${int(richPages)} pages of about ${fixed(site.pageBytes / 1024, 0)} KB (tables, lists, code)`,
      await measure(richApi, log, `${site.url}/`, [`${site.url}/`, ...richUrls], runs, levels), richPages + 1, runs, true));
  }
  console.log('');
  for (const line of summaries) console.log(line);
}

async function measure(api: WebDataClient, log: (line: string) => void, start: string, urls: string[], runs: number, levels: number[]): Promise<Sample[]> {
  log(`${urls.length} URLs; ${runs} runs of ${levels.length} concurrency levels`);
  const samples: Sample[] = [];
  for (let run = 0; run < runs; run++) {
    for (const c of levels) {
      samples.push(await timed('crawl', c, async () => {
        const job = await runJob(api, 'crawl', () => api.startCrawl({ url: start, limit: 100_000, maxConcurrency: c }));
        return { pages: job.completed, ms: job.ms };
      }));
      samples.push(await timed('batch scrape', c, async () => {
        const job = await runJob(api, 'batch', () => api.startBatchScrape({ urls, maxConcurrency: c }));
        return { pages: job.completed, ms: job.ms };
      }));
      samples.push(await timed('undici fetch loop', c, async () => ({ pages: urls.length, ms: await fetchLoop(urls, c) })));
      samples.push(await timed('fetch and convert loop', c, async () => ({ pages: urls.length, ms: await fetchLoop(urls, c, convertPage) })));
      log(`run ${run + 1}/${runs}, concurrency ${c}: ${samples.slice(-4).map((s) => `${s.mode} ${fixed(s.pages / (s.ms / 1000), 0)} pages/s`).join(', ')}`);
    }
  }
  return samples;
}

// The rich site: /p/1 .. /p/N, each about 15 KB of sections with a table, a nested list, a code
// block, a quote, an image and links to nearby pages; the home page links to every page.
// Pages are rendered once up front, so serving them costs what serving a file would.
const WORDS = 'alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega river stone cloud data node queue worker scrape crawl index page table list code'.split(' ');

function richPage(n: number, total: number): string {
  let seed = (n * 7919 + 13) >>> 0;
  const rnd = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const word = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const words = (k: number) => Array.from({ length: k }, word).join(' ');
  const link = (i: number) => `<a href="/p/${((n + i - 1) % total) + 1}">${words(2)}</a>`;
  const para = () => `<p>${words(12)} <strong>${words(2)}</strong>, ${words(8)} <em>${words(2)}</em> ${link(1 + Math.floor(rnd() * 20))} ${words(10)} <code>${word()}()</code> &amp; ${words(6)}.</p>`;
  const parts = [`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Rich page ${n}</title>`,
    `<meta name="description" content="${words(10)}"><link rel="canonical" href="/p/${n}"></head><body>`,
    `<header class="site-header"><nav><a href="/">Home</a> <a href="/p/1">First</a> <a href="/p/${total}">Last</a></nav></header>`,
    `<main><article><h1>Rich page ${n}</h1>`];
  for (let s = 1; s <= 5; s++) {
    parts.push(`<h2>Section ${s}: ${words(3)}</h2>`, para(), para(), '<table><thead><tr><th>Name</th><th>Value</th><th>Unit</th><th>Note</th></tr></thead><tbody>');
    for (let i = 1; i <= 8; i++) parts.push(`<tr><td>${word()}</td><td>${Math.floor(rnd() * 1000)}</td><td>${word()}</td><td>${words(3)} ${link(i)}</td></tr>`);
    parts.push('</tbody></table><ul>');
    for (let i = 1; i <= 4; i++) parts.push(`<li>${words(4)} ${link(s * 4 + i)}<ol><li>${words(3)}</li><li><em>${words(2)}</em> ${words(2)}</li></ol></li>`);
    parts.push('</ul>', `<pre><code class="language-ts">const ${word()} = await fetch("/p/${n}");\nfor (const x of ${word()}) {\n  if (x &lt; 3) console.log(x * 2);\n}\n</code></pre>`,
      `<blockquote><p>${words(14)}</p></blockquote>`, `<p><img src="/img/${n}-${s}.png" alt="${words(2)}"> ${words(8)}</p>`, para());
  }
  parts.push(`</article></main><footer class="site-footer"><p>Footer ${words(4)}</p></footer></body></html>`);
  return parts.join('\n');
}

export async function startRichSite(total: number): Promise<{ url: string; pageBytes: number; close: () => Promise<void> }> {
  const pages = Array.from({ length: total }, (_, i) => Buffer.from(richPage(i + 1, total)));
  const list = Array.from({ length: total }, (_, i) => `<li><a href="/p/${i + 1}">Rich page ${i + 1}</a></li>`).join('');
  const home = Buffer.from(`<!doctype html><html><head><title>Rich site</title></head><body><main><h1>Rich site</h1><ul>${list}</ul></main></body></html>`);
  const server = createServer((req, res) => {
    const n = /^\/p\/(\d+)$/.exec(req.url ?? '')?.[1];
    const body = req.url === '/' ? home : n && Number(n) >= 1 && Number(n) <= total ? pages[Number(n) - 1] : null;
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const pageBytes = pages.reduce((sum, p) => sum + p.length, 0) / total;
  return {
    url: `http://127.0.0.1:${port}`,
    pageBytes,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function timed(mode: Mode, concurrency: number, work: () => Promise<{ pages: number; ms: number }>): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const { pages, ms } = await work();
  const cpu = process.cpuUsage(cpu0);
  return { mode, concurrency, pages, ms, cpuMsPerPage: (cpu.user + cpu.system) / 1000 / pages };
}

/** Starts a job, waits for it, and returns its page count and the service's own duration. */
async function runJob(api: WebDataClient, kind: 'crawl' | 'batch', start: () => Promise<{ id: string }>): Promise<{ id: string; completed: number; ms: number }> {
  const { id } = await start();
  let status: JobStatusResponse;
  for (;;) {
    status = kind === 'crawl' ? await api.getCrawlStatus(id, { limit: 1 }) : await api.getBatchScrapeStatus(id, { limit: 1 });
    if (TERMINAL.has(status.status)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (status.status !== 'completed') throw new Error(`${kind} ${id}: ${status.status} ${status.error ?? ''}`);
  const ms = Date.parse(String(status.completedAt)) - Date.parse(String(status.createdAt));
  return { id, completed: status.completed, ms };
}

async function jobUrls(api: WebDataClient, id: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const page of api.pages(await api.getCrawlStatus(id))) {
    for (const doc of page.data) {
      const url = doc.metadata?.sourceURL ?? doc.metadata?.url;
      if (typeof url === 'string') urls.push(url);
    }
  }
  return urls;
}

const MARKDOWN_ONLY = normalizeOptions({ formats: ['markdown'] }, { timeoutMs: 30_000, maxAgeMs: 0 });

/** What a scrape does with a fetched page's bytes, done inline: decode and convert (markdown format). */
function convertPage(url: string, body: ArrayBuffer): void {
  convertHtml(Buffer.from(body).toString('utf8'), url, MARKDOWN_ONLY);
}

/** GETs every URL with `concurrency` loops sharing one keep-alive pool (then `then` on each body); returns wall ms. */
async function fetchLoop(urls: string[], concurrency: number, then?: (url: string, body: ArrayBuffer) => void): Promise<number> {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
  try {
    const t0 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const url = urls[next++];
        const res = await request(url, { dispatcher: agent });
        const body = await res.body.arrayBuffer();
        then?.(url, body);
      }
    }));
    return performance.now() - t0;
  } finally {
    await agent.close();
  }
}

/** Prints the site's table; returns its one-line summary at the highest concurrency. */
function report(site: string, samples: Sample[], urls: number, runs: number, withTargets = false): string {
  const levels = [...new Set(samples.map((s) => s.concurrency))];
  const rate = (mode: Mode, c: number) => medianOf(samples.filter((s) => s.mode === mode && s.concurrency === c), (s) => s.pages / (s.ms / 1000));
  const sequentialFetch = rate('undici fetch loop', Math.min(...levels));
  const rows: string[][] = [];
  for (const mode of MODES) {
    for (const c of levels) {
      const these = samples.filter((s) => s.mode === mode && s.concurrency === c);
      const r = rate(mode, c);
      rows.push([
        mode,
        String(c),
        int(medianOf(these, (s) => s.pages)),
        seconds(medianOf(these, (s) => s.ms)),
        fixed(r, 0),
        ratio(r, rate('undici fetch loop', c)),
        ratio(r, rate('fetch and convert loop', c)),
        ratio(r, sequentialFetch),
        fixed(medianOf(these, (s) => s.cpuMsPerPage), 2),
      ]);
    }
  }
  printTable(
    `Local service throughput: ${site}, ${int(urls)} URLs (medians of ${runs} runs)`,
    ['mode', 'concurrency', 'pages', 'seconds', 'pages/s', 'vs fetch loop, same concurrency', 'vs fetch and convert loop', `vs fetch loop, concurrency ${Math.min(...levels)}`, 'CPU ms / page'],
    rows,
    [
      '',
      'Crawl and batch times are the service\'s own (createdAt → completedAt). The fetch loop only downloads bytes;',
      'the service also checks robots.txt, reads sitemaps, discovers links, converts HTML to markdown (in worker',
      'threads) and keeps the documents for paging. The fetch and convert loop also converts each page, inline, with the',
      'service\'s converter. CPU is this process (service and its threads, site, client) per page.',
    ],
  );
  const top = Math.max(...levels);
  const fetchRate = rate('undici fetch loop', top);
  const convertRate = rate('fetch and convert loop', top);
  const cpu = medianOf(samples.filter((s) => s.mode === 'batch scrape' && s.concurrency === top), (s) => s.cpuMsPerPage);
  const targets = `\n  targets (#46), batch scrape at concurrency ${top}: vs fetch loop ${ratio(rate('batch scrape', top), fetchRate)} (target ≥ 0.30x), `
    + `vs fetch and convert loop ${ratio(rate('batch scrape', top), convertRate)} (target ≥ 0.80x), CPU ${fixed(cpu, 2)} ms/page (target ≤ 0.50)`;
  return `${site}, concurrency ${top}: batch scrape ${fixed(rate('batch scrape', top), 0)} pages/s = ${ratio(rate('batch scrape', top), fetchRate)}, `
    + `crawl ${fixed(rate('crawl', top), 0)} pages/s = ${ratio(rate('crawl', top), fetchRate)} of the fetch loop's ${fixed(fetchRate, 0)} pages/s, `
    + `${ratio(rate('batch scrape', top), convertRate)} and ${ratio(rate('crawl', top), convertRate)} of the fetch and convert loop's ${fixed(convertRate, 0)} pages/s`
    + (withTargets ? targets : '');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const pages = intOption('pages', 'BENCH_PAGES', 1000);
  const runs = intOption('runs', 'BENCH_RUNS', 3);
  const levels = listOption('concurrency', 'BENCH_CONCURRENCY', [1, 4, 16]);
  const richPages = intOption('rich-pages', 'BENCH_RICH_PAGES', 1000);
  await runBench('service-throughput', timeoutMs(900), (closers, log) => serviceThroughput(closers, log, pages, runs, levels, richPages));
}
