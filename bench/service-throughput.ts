// Local service throughput: pages per second of a crawl and of a batch scrape at maxConcurrency
// 1, 4 and 16, next to two anchors over the same URLs at the same concurrency: a plain undici
// fetch loop (bytes only: no robots.txt, sitemaps, link discovery or markdown) and a loop that
// fetches and converts each page with the service's own converter (convertHtml, markdown format,
// in the event loop of this process, no threads), on two sites: the demo site
// (small pages) and a site of 15 KB pages rich in tables, lists and code, where HTML to markdown
// is most of the work. Job times are the service's own (createdAt → completedAt), so polling
// does not blur them. The service, its conversion threads, the client polling its jobs and the
// loops run in this process; each site runs in a child process of its own (bench/lib/site-process.ts),
// so CPU per page is printed three ways: this process (the service and its client, or the loop),
// the site's process, and their sum (what serving and scraping a page costs the machine, the
// figure this bench printed when the sites ran in this process too). Prints medians and ratios,
// never pass/fail; the rich site's line sets the issue's targets beside what it measured (its CPU
// target is this process's figure for the batch scrape: the service's own CPU).
//
//   node --import tsx bench/service-throughput.ts [--pages=1000] [--rich-pages=1000] [--runs=3] [--concurrency=1,4,16]
//   (or BENCH_PAGES, BENCH_RICH_PAGES, BENCH_RUNS, BENCH_CONCURRENCY; BENCH_TIMEOUT_S bounds the
//   whole run)
// First: on Node 20 npm leaves out mdream's platform package (its `engines` asks for 22), so point
// mdream at the binding scripts/ensure-native-mdream.sh cached, and measure the engine a Node 22
// install runs. The engine line below says which one ran.
import '../packages/service/test/native-mdream.js';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { WebDataClient } from '../packages/client/src/client.js';
import { convertHtml, normalizeOptions } from '../packages/service/src/scrape/index.js';
import { describeMarkdownEngine } from '../packages/service/src/scrape/markdown-engine.js';
import type { JobStatusResponse } from '../packages/contract/src/types.js';
import { startCountingServiceFor } from './lib/counting-service.js';
import { intOption, listOption, runBench, timeoutMs, type Closers } from './lib/harness.js';
import { fixed, int, medianOf, ratio, seconds } from './lib/stats.js';
import { startSiteProcess, type SiteProcess } from './lib/site-process.js';
import { printTable } from './lib/table.js';
import { allowPrivateHosts } from '../test/helpers/private-hosts.js';

type Mode = 'crawl' | 'batch scrape' | 'undici fetch loop' | 'fetch and convert loop';
const MODES: Mode[] = ['crawl', 'batch scrape', 'undici fetch loop', 'fetch and convert loop'];

interface Sample {
  mode: Mode;
  concurrency: number;
  pages: number;
  ms: number;
  /** CPU of this process per page: the service (its threads included) and the client polling it, or the loop. */
  cpuMsPerPage: number;
  /** CPU of the site's process per page (serving the pages). */
  siteCpuMsPerPage: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** `richPages` 0 measures the demo site only. */
export async function serviceThroughput(
  closers: Closers, log: (line: string) => void, pages: number, runs: number, levels: number[], richPages = 0,
): Promise<void> {
  const demo = await startSiteProcess('demo', pages);
  const svc = await startCountingServiceFor(demo, { concurrency: Math.max(...levels) }).catch(async (err: unknown) => {
    await demo.close();
    throw err;
  });
  closers.add('service and demo site', () => svc.close());
  // The crawls name the demo site on 127.0.0.1: allowed by its host:port.
  allowPrivateHosts(svc.siteUrl);
  const api = new WebDataClient({ apiKey: svc.apiKey, baseUrl: svc.url });
  closers.add('api client', () => api.close());

  log(describeMarkdownEngine());
  log(`demo site of ${pages} content pages; warm-up crawl for the URL list`);
  const start = `${svc.siteUrl}/`;
  const warm = await runJob(api, 'crawl', () => api.startCrawl({ url: start, limit: 100_000, maxConcurrency: Math.max(...levels) }));
  const urls = await jobUrls(api, warm.id);
  const summaries = [report(`demo site of ${int(pages)} content pages`, await measure(api, demo, log, start, urls, runs, levels), urls.length, runs)];

  if (richPages > 0) {
    const site = await startSiteProcess('rich', richPages);
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
      await measure(richApi, site, log, `${site.url}/`, [`${site.url}/`, ...richUrls], runs, levels), richPages + 1, runs, true));
  }
  console.log('');
  for (const line of summaries) console.log(line);
}

async function measure(api: WebDataClient, site: SiteProcess, log: (line: string) => void, start: string, urls: string[], runs: number, levels: number[]): Promise<Sample[]> {
  log(`${urls.length} URLs; ${runs} runs of ${levels.length} concurrency levels`);
  const samples: Sample[] = [];
  for (let run = 0; run < runs; run++) {
    for (const c of levels) {
      samples.push(await timed('crawl', c, site, async () => {
        const job = await runJob(api, 'crawl', () => api.startCrawl({ url: start, limit: 100_000, maxConcurrency: c }));
        return { pages: job.completed, ms: job.ms };
      }));
      samples.push(await timed('batch scrape', c, site, async () => {
        const job = await runJob(api, 'batch', () => api.startBatchScrape({ urls, maxConcurrency: c }));
        return { pages: job.completed, ms: job.ms };
      }));
      samples.push(await timed('undici fetch loop', c, site, async () => ({ pages: urls.length, ms: await fetchLoop(urls, c) })));
      samples.push(await timed('fetch and convert loop', c, site, async () => ({ pages: urls.length, ms: await fetchLoop(urls, c, convertPage) })));
      log(`run ${run + 1}/${runs}, concurrency ${c}: ${samples.slice(-4).map((s) => `${s.mode} ${fixed(s.pages / (s.ms / 1000), 0)} pages/s`).join(', ')}`);
    }
  }
  return samples;
}

async function timed(mode: Mode, concurrency: number, site: SiteProcess, work: () => Promise<{ pages: number; ms: number }>): Promise<Sample> {
  const site0 = await site.cpuMs();
  const cpu0 = process.cpuUsage();
  const { pages, ms } = await work();
  const cpu = process.cpuUsage(cpu0);
  const siteMs = (await site.cpuMs()) - site0;
  return { mode, concurrency, pages, ms, cpuMsPerPage: (cpu.user + cpu.system) / 1000 / pages, siteCpuMsPerPage: siteMs / pages };
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
        fixed(medianOf(these, (s) => s.siteCpuMsPerPage), 2),
        fixed(medianOf(these, (s) => s.cpuMsPerPage + s.siteCpuMsPerPage), 2),
      ]);
    }
  }
  printTable(
    `Local service throughput: ${site}, ${int(urls)} URLs (medians of ${runs} runs)`,
    ['mode', 'concurrency', 'pages', 'seconds', 'pages/s', 'vs fetch loop, same concurrency', 'vs fetch and convert loop', `vs fetch loop, concurrency ${Math.min(...levels)}`, 'CPU ms / page, this process', 'site process', 'both'],
    rows,
    [
      '',
      'Crawl and batch times are the service\'s own (createdAt → completedAt). The fetch loop only downloads bytes;',
      'the service also checks robots.txt, reads sitemaps, discovers links, converts HTML to markdown (in worker',
      'threads) and keeps the documents for paging. The fetch and convert loop also converts each page, inline, with the',
      'service\'s converter. CPU per page: this process is the service (its threads included) and the client polling',
      'its job, or the loop; the site runs in a process of its own; both is their sum.',
    ],
  );
  const top = Math.max(...levels);
  const fetchRate = rate('undici fetch loop', top);
  const convertRate = rate('fetch and convert loop', top);
  const batches = samples.filter((s) => s.mode === 'batch scrape' && s.concurrency === top);
  const cpu = medianOf(batches, (s) => s.cpuMsPerPage);
  const siteCpu = medianOf(batches, (s) => s.siteCpuMsPerPage);
  const whole = medianOf(batches, (s) => s.cpuMsPerPage + s.siteCpuMsPerPage);
  const targets = `\n  targets, batch scrape at concurrency ${top}: vs fetch loop ${ratio(rate('batch scrape', top), fetchRate)} (target ≥ 0.30x), `
    + `vs fetch and convert loop ${ratio(rate('batch scrape', top), convertRate)} (target ≥ 0.80x), `
    + `CPU of the service (and its polling client) ${fixed(cpu, 2)} ms/page (target ≤ 0.50); `
    + `with the site's ${fixed(siteCpu, 2)}, service + site + client ${fixed(whole, 2)} ms/page`;
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
