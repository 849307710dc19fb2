// Local service throughput: pages per second of a crawl and of a batch scrape of the demo site
// at maxConcurrency 1, 4 and 16, next to a plain undici fetch loop over the same URLs at the
// same concurrency (bytes only: no robots.txt, sitemaps, link discovery or markdown). Job
// times are the service's own (createdAt → completedAt), so polling does not blur them.
// Prints medians and ratios, never pass/fail.
//
//   node --import tsx bench/service-throughput.ts [--pages=1000] [--runs=3] [--concurrency=1,4,16]
//   (or BENCH_PAGES, BENCH_RUNS, BENCH_CONCURRENCY; BENCH_TIMEOUT_S bounds the whole run)
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { WebDataClient } from '../packages/client/src/client.js';
import type { JobStatusResponse } from '../packages/contract/src/types.js';
import { startCountingService } from './lib/counting-service.js';
import { intOption, listOption, runBench, timeoutMs, type Closers } from './lib/harness.js';
import { fixed, int, medianOf, ratio, seconds } from './lib/stats.js';
import { printTable } from './lib/table.js';

type Mode = 'crawl' | 'batch scrape' | 'undici fetch loop';

interface Sample {
  mode: Mode;
  concurrency: number;
  pages: number;
  ms: number;
  /** CPU of this process (service + demo site + client) per page. */
  cpuMsPerPage: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export async function serviceThroughput(closers: Closers, log: (line: string) => void, pages: number, runs: number, levels: number[]): Promise<void> {
  const svc = await startCountingService({ pages, concurrency: Math.max(...levels) });
  closers.add('service', () => svc.close());
  const api = new WebDataClient({ apiKey: svc.apiKey, baseUrl: svc.url });
  closers.add('api client', () => api.close());
  const start = `${svc.siteUrl}/`;

  log(`demo site of ${pages} content pages; warm-up crawl for the URL list`);
  const warm = await runJob(api, 'crawl', () => api.startCrawl({ url: start, limit: 100_000, maxConcurrency: Math.max(...levels) }));
  const urls = await jobUrls(api, warm.id);
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
      log(`run ${run + 1}/${runs}, concurrency ${c}: ${samples.slice(-3).map((s) => `${s.mode} ${fixed(s.pages / (s.ms / 1000), 0)} pages/s`).join(', ')}`);
    }
  }
  report(samples, pages, urls.length, runs);
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

/** GETs every URL with `concurrency` loops sharing one keep-alive pool; returns wall ms. */
async function fetchLoop(urls: string[], concurrency: number): Promise<number> {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
  try {
    const t0 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const res = await request(urls[next++], { dispatcher: agent });
        await res.body.arrayBuffer();
      }
    }));
    return performance.now() - t0;
  } finally {
    await agent.close();
  }
}

function report(samples: Sample[], sitePages: number, urls: number, runs: number): void {
  const levels = [...new Set(samples.map((s) => s.concurrency))];
  const modes: Mode[] = ['crawl', 'batch scrape', 'undici fetch loop'];
  const rate = (mode: Mode, c: number) => medianOf(samples.filter((s) => s.mode === mode && s.concurrency === c), (s) => s.pages / (s.ms / 1000));
  const sequentialFetch = rate('undici fetch loop', Math.min(...levels));
  const rows: string[][] = [];
  for (const mode of modes) {
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
        ratio(r, sequentialFetch),
        fixed(medianOf(these, (s) => s.cpuMsPerPage), 2),
      ]);
    }
  }
  printTable(
    `Local service throughput: demo site of ${int(sitePages)} content pages, ${int(urls)} URLs crawled (medians of ${runs} runs)`,
    ['mode', 'concurrency', 'pages', 'seconds', 'pages/s', 'vs fetch loop, same concurrency', `vs fetch loop, concurrency ${Math.min(...levels)}`, 'CPU ms / page'],
    rows,
    [
      '',
      'Crawl and batch times are the service\'s own (createdAt → completedAt). The fetch loop only downloads bytes;',
      'the service also checks robots.txt, reads sitemaps, discovers links, converts HTML to markdown and keeps the',
      'documents for paging. CPU is this process (service, demo site and client) per page.',
    ],
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const pages = intOption('pages', 'BENCH_PAGES', 1000);
  const runs = intOption('runs', 'BENCH_RUNS', 3);
  const levels = listOption('concurrency', 'BENCH_CONCURRENCY', [1, 4, 16]);
  await runBench('service-throughput', timeoutMs(900), (closers, log) => serviceThroughput(closers, log, pages, runs, levels));
}
