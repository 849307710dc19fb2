// Crawl throughput: pages per second of a crawl of a 2,000-page demo site through the
// local service (discovery, robots.txt, sitemaps, scraping with HTML → markdown, results
// kept), side by side with a plain sequential undici fetch loop over the same URLs (bytes
// only). A benchmark: it prints a table with ratios, it does not pass or fail. Service,
// site and benchmark share one process, so crawl concurrency helps only as far as the
// machine has spare cores: the demo site answers without latency.
//
//   node --import tsx service/bench/crawl-throughput.ts [pages=2000] [concurrency=10]
import { request, Agent } from 'undici';
import { startLocalService } from '../src/app.js';
import type { TeamConfig } from '../src/core/teams.js';
import { startDemoSite } from '../src/demo-site/index.js';
import { silentLogger } from '../src/http/logger.js';
import { createHttpScrapeEngine } from '../src/scrape/index.js';

const pages = Number(process.argv[2] ?? 2000);
const concurrency = Number(process.argv[3] ?? 10);
const KEY = 'bench-key';

const benchTeam: TeamConfig = {
  id: 'bench',
  apiKeys: [KEY],
  credits: 10_000_000,
  rateLimits: {},
  concurrency,
  maxBrowserSessions: 1,
  features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
};

interface Row {
  mode: string;
  pages: number;
  seconds: number;
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Starts a crawl, waits for it, reads every result page; returns the scraped URLs and the time. */
async function timedCrawl(base: string, url: string, maxConcurrency: number): Promise<{ urls: string[]; seconds: number }> {
  const t0 = performance.now();
  const { id } = (await api(base, 'POST', '/v2/crawl', { url, maxConcurrency })) as { id: string };
  for (;;) {
    const status = await api(base, 'GET', `/v2/crawl/${id}?limit=1`);
    if (status.status !== 'scraping') break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const seconds = (performance.now() - t0) / 1000;
  const urls: string[] = [];
  let next: string | undefined = `/v2/crawl/${id}`;
  while (next) {
    const page = await api(base, 'GET', next);
    for (const doc of page.data as Array<{ metadata: { sourceURL: string } }>) urls.push(doc.metadata.sourceURL);
    next = typeof page.next === 'string' ? page.next.slice(base.length) : undefined;
  }
  return { urls, seconds };
}

async function sequentialFetch(urls: string[]): Promise<number> {
  const agent = new Agent({ connections: 1 });
  try {
    const t0 = performance.now();
    for (const url of urls) {
      const res = await request(url, { dispatcher: agent });
      await res.body.text();
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await agent.close();
  }
}

async function main(): Promise<void> {
  const site = await startDemoSite({ pages });
  const svc = await startLocalService({
    teams: [benchTeam],
    scrapeEngine: createHttpScrapeEngine({ cache: false }),
    logger: silentLogger,
    site: false,
  });
  try {
    const start = `${site.url}/`;
    // Warm-up (JIT, sockets): the docs section, about a third of the site.
    await timedCrawl(svc.url, `${site.url}/docs`, concurrency);

    // Best of two runs per mode, interleaved, to damp noise from a shared machine.
    const best = (a: { urls: string[]; seconds: number }, b: { urls: string[]; seconds: number }) => (a.seconds <= b.seconds ? a : b);
    let crawl = await timedCrawl(svc.url, start, concurrency);
    let serial = await timedCrawl(svc.url, start, 1);
    crawl = best(crawl, await timedCrawl(svc.url, start, concurrency));
    serial = best(serial, await timedCrawl(svc.url, start, 1));
    const fetchSeconds = Math.min(await sequentialFetch(crawl.urls), await sequentialFetch(crawl.urls));

    const rows: Row[] = [
      { mode: `crawl, maxConcurrency ${concurrency}`, pages: crawl.urls.length, seconds: crawl.seconds },
      { mode: 'crawl, maxConcurrency 1', pages: serial.urls.length, seconds: serial.seconds },
      { mode: 'sequential undici fetch (bytes only)', pages: crawl.urls.length, seconds: fetchSeconds },
    ];
    const baseline = crawl.urls.length / fetchSeconds;
    console.log(`\nCrawl throughput: demo site of ${pages} content pages (${crawl.urls.length} pages crawled), Node ${process.version}\n`);
    const header = ['mode', 'pages', 'seconds', 'pages/s', 'vs fetch loop'];
    const lines = rows.map((r) => {
      const rate = r.pages / r.seconds;
      return [r.mode, String(r.pages), r.seconds.toFixed(2), rate.toFixed(1), `${(rate / baseline).toFixed(2)}x`];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
    const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    console.log(fmt(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const l of lines) console.log(fmt(l));
    console.log('\nThe fetch loop only downloads bytes; the crawl also discovers links, checks robots.txt,');
    console.log('reads sitemaps, converts every page to markdown and keeps the documents for paging.');
  } finally {
    await svc.close();
    await site.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
