// Differential test of POST /v2/crawl: the same option combinations crawled by the
// open-source server (WEBDATA_OSS_URL, started by scripts/test-compat.mjs) and by the local
// service (started here, in-process on 127.0.0.1), on one generated site (crawl-site.ts).
// Compared per combination: the set of document URLs (sourceURL, trailing slash ignored),
// the document count and the robotsBlocked list. Every difference must be listed in
// ALLOWED with its reason and the reference line it rests on; the test prints one table
// and fails on any unexplained difference.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServiceApp } from '../../packages/service/src/app.js';
import { listen } from '../../packages/service/src/http/server.js';
import { silentLogger } from '../../packages/service/src/http/logger.js';
import { createHttpScrapeEngine } from '../../packages/service/src/scrape/index.js';
import { registerJobRoutes } from '../../packages/service/src/jobs/index.js';
import { startCrawlSite, type CrawlSite } from './crawl-site.js';

const OSS_URL = process.env.WEBDATA_OSS_URL;
const SITE_HOST = process.env.WEBDATA_OSS_SITE_HOST ?? '127.0.0.10';
const OTHER_HOST = process.env.WEBDATA_OSS_OTHER_HOST ?? '127.0.0.11';
const KEY = 'key-diff';
/**
 * A server that stores no page of any crawl for this long is stuck. The open-source server
 * scrapes 8 pages at a time, each rendered in Chromium (about 1 CPU-second a page): all
 * combinations together are about 250 pages, 2 to 5 minutes on 2 cores, more when it is busy.
 */
const CRAWL_TIMEOUT_MS = Number(process.env.WEBDATA_OSS_CRAWL_TIMEOUT_MS ?? 540_000);

interface Combo {
  name: string;
  /** The start path on the main host. */
  path: string;
  options: Record<string, unknown>;
}

/** A section, a post of a section, and a robots-blocked page (excluded: not listed in robotsBlocked). */
const EXCLUDE = ['^/docs/guide', '^/blog/post-[2-9]', '^/private/admin'];

/** The option combinations, each crawled by both servers. */
const COMBOS: Combo[] = [
  { name: 'defaults', path: '/', options: {} },
  { name: 'subsection', path: '/docs/', options: {} },
  { name: 'subsection + crawlEntireDomain', path: '/docs/', options: { crawlEntireDomain: true } },
  { name: 'include (start matches)', path: '/', options: { includePaths: ['^/$', '^/blog'] } },
  { name: 'include, sitemap skip', path: '/', options: { includePaths: ['^/$', '^/blog'], sitemap: 'skip' } },
  // Sitemap skip: the sitemap's /docs URLs would be crawled by both and hide the difference.
  { name: 'include (start fails it)', path: '/', options: { includePaths: ['^/docs'], sitemap: 'skip' } },
  { name: 'exclude', path: '/', options: { excludePaths: EXCLUDE } },
  { name: 'exclude, sitemap skip', path: '/', options: { excludePaths: EXCLUDE, sitemap: 'skip' } },
  { name: 'maxDiscoveryDepth 1', path: '/', options: { maxDiscoveryDepth: 1 } },
  { name: 'maxDiscoveryDepth 2', path: '/', options: { maxDiscoveryDepth: 2 } },
  { name: 'maxDiscoveryDepth 1, subsection', path: '/docs/', options: { maxDiscoveryDepth: 1 } },
  { name: 'sitemap skip', path: '/', options: { sitemap: 'skip' } },
  { name: 'sitemap only', path: '/', options: { sitemap: 'only' } },
  { name: 'ignoreQueryParameters', path: '/shop/', options: { ignoreQueryParameters: true } },
  { name: 'query variants kept', path: '/shop/', options: {} },
  // Both stop inside what is handed out first: the start URL and the sitemap (4 = the start
  // URL and the first three sitemap URLs that robots.txt allows), or the start page's links.
  { name: 'limit 4 (sitemap)', path: '/', options: { limit: 4 } },
  { name: 'limit 6, sitemap skip', path: '/', options: { limit: 6, sitemap: 'skip' } },
  { name: 'allowExternalLinks', path: '/', options: { allowExternalLinks: true } },
  { name: 'allowExternalLinks, maxDiscoveryDepth 2', path: '/', options: { allowExternalLinks: true, maxDiscoveryDepth: 2 } },
  { name: 'regexOnFullURL exclude', path: '/shop/', options: { regexOnFullURL: true, excludePaths: ['ref='] } },
  { name: 'redirecting start URL', path: '/start', options: {} },
  { name: 'slash redirect start (subsection)', path: '/docs/api/', options: { sitemap: 'skip' } },
];

/**
 * WEBDATA_CRAWL_DIFF_ONLY="name,name" runs those combinations only (to look into one; the
 * test then does not count as the full comparison); WEBDATA_CRAWL_DIFF_VERBOSE=1 prints
 * both URL lists of every combination.
 */
const only = process.env.WEBDATA_CRAWL_DIFF_ONLY?.split(',').map((n) => n.trim()).filter(Boolean);
const RUN = only ? COMBOS.filter((c) => only.includes(c.name)) : COMBOS;

interface Outcome {
  /** HTTP status of POST /v2/crawl when it was not 200. */
  refused?: number;
  urls: string[];
  count: number;
  robotsBlocked: string[];
  /** sourceURL → final URL of each document that was redirected (both normalized). */
  redirects: Record<string, string>;
}

interface Diff {
  onlyOss: string[];
  onlyLocal: string[];
  countOss: number;
  countLocal: number;
  robotsOnlyOss: string[];
  robotsOnlyLocal: string[];
  refusedOss?: number;
  refusedLocal?: number;
  /** The local service's redirected documents (sourceURL → final URL). */
  redirectsLocal: Record<string, string>;
  /** Every URL of the open-source server's crawl. */
  urlsOss: string[];
}

interface Allowed {
  /** The combination it applies to, or `*` for any. */
  combo: string;
  difference: string;
  reason: string;
  /** Where the reference (or the contract notes) says so. */
  ref: string;
  holds(d: Diff): boolean;
}

/** Every allowed difference: where the reference speaks and the older open-source server does not follow it, or where that server's own result depends on timing (shown from its source). */
const ALLOWED: Allowed[] = [
  {
    combo: '*',
    difference: 'open-source server: a crawled URL that redirects to another URL of the same crawl is missing (local: kept under its sourceURL with the target\'s final URL), some runs only',
    reason: 'the reference is silent on redirects within a crawl. That server keeps such a page when its Playwright engine answers (which reports the requested URL: "TODO: impove redirect following") and drops it silently when its fetch engine answers first (which reports the final URL, whose lock the crawl already holds: RacedRedirectError, "Job got redirect raced"). Which engine answers first depends on load (its engine waterfall), so both outcomes occur',
    ref: 'open-source server 0fac8fb apps/api/src/services/worker/scrape-worker.ts (RacedRedirectError) and scraper/scrapeURL/engines/playwright/index.ts; contract-notes.md "Observed on the open-source server" lists no crawl redirect rule',
    holds: (d) => d.onlyOss.length === 0 && d.onlyLocal.length > 0 && d.robotsOnlyOss.length === 0 && d.robotsOnlyLocal.length === 0
      && d.refusedOss === undefined && d.refusedLocal === undefined && d.countLocal - d.countOss === d.onlyLocal.length
      && d.onlyLocal.every((u) => d.redirectsLocal[u] !== undefined && d.urlsOss.includes(d.redirectsLocal[u])),
  },
  {
    combo: 'sitemap only',
    difference: 'open-source server answers 400; local crawls the start URL and the sitemap URLs only',
    reason: 'the reference lists `only` as a sitemap value; that older server does not know it',
    ref: 'api-reference-v2.md 4.5 `sitemap`: "`skip` (ignore sitemap), `include`, `only` (only sitemap URLs plus start URL; no link discovery from HTML)"',
    holds: (d) => d.refusedOss === 400 && d.refusedLocal === undefined && d.countLocal > 0,
  },
  {
    combo: 'include (start fails it)',
    difference: 'local: 0 pages; open-source server: the /docs pages reached through the start page\'s links (not the start page), and the disallowed URLs met on them in robotsBlocked',
    reason: 'the reference checks the start URL against includePaths; that server leaves the start page out of the results but still follows its links',
    ref: 'api-reference-v2.md 4.5 `includePaths`: "the start URL is also checked, so a non-matching start URL may yield 0 pages"',
    holds: (d) => d.countLocal === 0 && d.onlyLocal.length === 0 && d.countOss > 0 && d.robotsOnlyLocal.length === 0
      && d.onlyOss.every((u) => new URL(u).pathname.startsWith('/docs')),
  },
];

const normalize = (raw: string): string => {
  const u = new URL(raw);
  u.hash = '';
  if (u.pathname.length > 1 && u.pathname.endsWith('/')) u.pathname = u.pathname.slice(0, -1);
  return u.href;
};

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const send = () => fetch(url, { ...init, headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, ...(init?.headers ?? {}) } });
  // A kept-alive socket the server closed while this busy process had not yet reused it: the
  // request is sent again. Many crawls run at once, so the pool can hold several such sockets
  // (seen: the one resend also hit one at load average 47); up to 4 sends, a short pause apart.
  // A crawl start the server did receive only adds an unread crawl there.
  let res: Response | undefined;
  for (let attempt = 1; !res; attempt += 1) {
    try {
      res = await send();
    } catch (err) {
      const code = (err as { cause?: { code?: unknown } }).cause?.code;
      if ((code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') || attempt >= 4) throw err;
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body };
}

/**
 * Crawls started and not yet read to the end. When the test fails they are cancelled: the
 * open-source server would go on retrying their pages after the site stopped, and the next
 * compat test's crawl would wait behind them (seen: 40 min).
 */
const unfinished = new Set<string>();

/** When each server last showed a crawl's page count grow (or started a crawl). */
const lastProgress = new Map<string, number>();

/** Crawls on one server: start, wait for the end, read every document (de-duplicated by id) and the errors. */
async function crawlOn(api: string, body: Record<string, unknown>, timeoutMs = CRAWL_TIMEOUT_MS): Promise<Outcome> {
  const started = await json(`${api}/v2/crawl`, { method: 'POST', body: JSON.stringify(body) });
  if (started.status !== 200) return { refused: started.status, urls: [], count: 0, robotsBlocked: [], redirects: {} };
  const id = String(started.body.id);
  unfinished.add(`${api}/v2/crawl/${id}`);
  lastProgress.set(api, Math.max(lastProgress.get(api) ?? 0, Date.now()));
  let seen = -1;
  let status: Record<string, unknown>;
  for (;;) {
    status = (await json(`${api}/v2/crawl/${id}`)).body;
    // Done, and every page it counts is in `data` (under load the open-source server can say
    // completed while a page it counts is still being stored).
    const data = (status.data as unknown[] | undefined) ?? [];
    const counted = typeof status.total === 'number' ? status.total : 0;
    if (status.status !== 'scraping' && (status.status !== 'completed' || status.next || data.length >= counted)) break;
    const done = typeof status.completed === 'number' ? status.completed : data.length;
    if (done > seen) {
      seen = done;
      lastProgress.set(api, Date.now());
    }
    // A crawl may wait in the server's queue behind the others: it fails only when the whole
    // server made no progress for timeoutMs (at load average 47 one crawl took over 540 s).
    const idle = Date.now() - (lastProgress.get(api) ?? 0);
    if (idle > timeoutMs) throw new Error(`crawl ${id} on ${api} still running; that server stored no page for ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  // Follow `next` (the local service pages; the open-source server answers everything at once).
  const docs = new Map<string, Record<string, unknown>>();
  let page: Record<string, unknown> | undefined = status;
  for (let i = 0; page && i < 1000; i++) {
    const data = (page.data as Array<{ metadata?: Record<string, unknown> }>) ?? [];
    let fresh = 0;
    for (const d of data) {
      const key = String(d.metadata?.scrapeId ?? d.metadata?.sourceURL);
      if (!docs.has(key)) fresh++;
      docs.set(key, d.metadata ?? {});
    }
    const next = page.next as string | undefined;
    if (!next || fresh === 0) break;
    page = (await json(next)).body;
  }
  unfinished.delete(`${api}/v2/crawl/${id}`);
  const errors = (await json(`${api}/v2/crawl/${id}/errors`)).body;
  const metas = [...docs.values()];
  const redirects: Record<string, string> = {};
  for (const m of metas) {
    if (m.sourceURL === undefined || m.url === undefined) continue;
    const from = normalize(String(m.sourceURL));
    const to = normalize(String(m.url));
    if (from !== to) redirects[from] = to;
  }
  return {
    redirects,
    urls: metas.map((m) => normalize(String(m.sourceURL ?? m.url))),
    count: metas.length,
    robotsBlocked: [...new Set(((errors.robotsBlocked as string[]) ?? []).map(normalize))],
  };
}

function diffOf(oss: Outcome, local: Outcome): Diff {
  const o = new Set(oss.urls);
  const l = new Set(local.urls);
  const ro = new Set(oss.robotsBlocked);
  const rl = new Set(local.robotsBlocked);
  return {
    onlyOss: [...o].filter((u) => !l.has(u)).sort(),
    onlyLocal: [...l].filter((u) => !o.has(u)).sort(),
    countOss: oss.count,
    countLocal: local.count,
    robotsOnlyOss: [...ro].filter((u) => !rl.has(u)).sort(),
    robotsOnlyLocal: [...rl].filter((u) => !ro.has(u)).sort(),
    ...(oss.refused !== undefined ? { refusedOss: oss.refused } : {}),
    ...(local.refused !== undefined ? { refusedLocal: local.refused } : {}),
    redirectsLocal: local.redirects,
    urlsOss: oss.urls,
  };
}

const identical = (d: Diff) =>
  d.onlyOss.length === 0 && d.onlyLocal.length === 0 && d.countOss === d.countLocal && d.robotsOnlyOss.length === 0 && d.robotsOnlyLocal.length === 0 && d.refusedOss === d.refusedLocal;

let site: CrawlSite;
let local: { url: string; close(): Promise<void> };

before(async () => {
  assert.ok(OSS_URL, 'WEBDATA_OSS_URL is not set: run through `npm run test:compat`');
  site = await startCrawlSite({ host: SITE_HOST, otherHost: OTHER_HOST });
  const app = createServiceApp({
    teams: [{
      id: 'diff', apiKeys: [KEY], credits: 1_000_000, rateLimits: {}, concurrency: 8, maxBrowserSessions: 1,
      features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
    }],
    scrapeEngine: createHttpScrapeEngine({ cache: false }),
    logger: silentLogger,
  });
  if (!app.router.list().some((r) => r.pattern === '/v2/crawl')) registerJobRoutes(app.router, app.context);
  const server = await listen(app.listener, { host: '127.0.0.1' });
  local = { url: server.url, close: async () => { await Promise.all([server.close(), app.close()]); } };
});

after(async () => {
  await Promise.all([...unfinished].map((job) => json(job, { method: 'DELETE' }).catch(() => undefined)));
  await local?.close();
  await site?.close();
});

test('crawl differential: the local service crawls like the open-source server, or the reference explains why not', async () => {
  const bodyOf = (c: Combo) => ({ url: `${site.url}${c.path}`, ...c.options, scrapeOptions: { formats: ['markdown'] } });
  // Every combination at once on both servers: the open-source server's throughput is its 8
  // scrape slots whatever the number of crawls, and a crawl with a narrow frontier (a chain,
  // a single page) would leave slots idle if the crawls took turns.
  const t0 = Date.now();
  const [ossOutcomes, localOutcomes] = await Promise.all([
    Promise.all(RUN.map((c) => crawlOn(String(OSS_URL), bodyOf(c)))),
    Promise.all(RUN.map((c) => crawlOn(local.url, bodyOf(c)))),
  ]);
  // Under load the open-source server's result depends on timing (it can finish a crawl while a
  // page of it is still being scraped, and locks URLs first come, first served): a difference
  // counts only if a second crawl of that combination there shows it again. Reported below.
  const recrawled: string[] = [];
  await Promise.all(RUN.map(async (c, i) => {
    const d = diffOf(ossOutcomes[i], localOutcomes[i]);
    if (identical(d) || ALLOWED.some((a) => (a.combo === c.name || a.combo === '*') && a.holds(d))) return;
    const again = await crawlOn(String(OSS_URL), bodyOf(c));
    if (identical(diffOf(again, localOutcomes[i]))) {
      recrawled.push(`${c.name} (first crawl there: ${ossOutcomes[i].count} pages${ossOutcomes[i].refused ? `, ${ossOutcomes[i].refused}` : ''})`);
      ossOutcomes[i] = again;
    }
  }));
  const seconds = (Date.now() - t0) / 1000;
  const ossPages = ossOutcomes.reduce((n, o) => n + o.count, 0);
  const rows: string[] = [];
  const unexplained: string[] = [];
  const explained: Array<{ combo: string; a: Allowed }> = [];
  let same = 0;
  RUN.forEach((c, i) => {
    const d = diffOf(ossOutcomes[i], localOutcomes[i]);
    if (process.env.WEBDATA_CRAWL_DIFF_VERBOSE) {
      const short = (o: Outcome) => `${o.refused ?? ''} ${o.urls.map((u) => u.replace(site.url, '').replace(site.other, 'OTHER')).sort().join(' ')} | robotsBlocked ${o.robotsBlocked.map((u) => u.replace(site.url, '')).sort().join(' ')}`;
      console.log(`${c.name}\n  oss:   ${short(ossOutcomes[i])}\n  local: ${short(localOutcomes[i])}`);
    }
    const counts = `${d.refusedOss ?? d.countOss}/${d.refusedLocal ?? d.countLocal}`;
    if (identical(d)) {
      same++;
      rows.push(`  ${c.name.padEnd(40)} ${counts.padEnd(9)} identical`);
      return;
    }
    const allowed = ALLOWED.find((a) => (a.combo === c.name || a.combo === '*') && a.holds(d));
    if (allowed) {
      explained.push({ combo: c.name, a: allowed });
      rows.push(`  ${c.name.padEnd(40)} ${counts.padEnd(9)} explained: ${allowed.difference}`);
      return;
    }
    const what = [
      d.refusedOss !== d.refusedLocal ? `refused oss ${d.refusedOss ?? '-'} local ${d.refusedLocal ?? '-'}` : '',
      d.countOss !== d.countLocal ? `count oss ${d.countOss} local ${d.countLocal}` : '',
      d.onlyOss.length ? `only oss: ${d.onlyOss.map((u) => u.replace(site.url, '')).join(' ')}` : '',
      d.onlyLocal.length ? `only local: ${d.onlyLocal.map((u) => u.replace(site.url, '')).join(' ')}` : '',
      d.robotsOnlyOss.length ? `robotsBlocked only oss: ${d.robotsOnlyOss.map((u) => u.replace(site.url, '')).join(' ')}` : '',
      d.robotsOnlyLocal.length ? `robotsBlocked only local: ${d.robotsOnlyLocal.map((u) => u.replace(site.url, '')).join(' ')}` : '',
    ].filter(Boolean).join('; ');
    unexplained.push(`${c.name}: ${what}`);
    rows.push(`  ${c.name.padEnd(40)} ${counts.padEnd(9)} UNEXPLAINED: ${what}`);
  });
  const table = [
    `crawl differential on ${site.url} (+ ${site.other}): ${RUN.length} combinations, ${same} identical, ${explained.length} explained, ${unexplained.length} unexplained`,
    `  ${ossPages} pages crawled by the open-source server in ${seconds.toFixed(0)} s (${(ossPages / seconds).toFixed(2)} pages/s)`,
    ...(recrawled.length ? [`  crawled twice there (the first crawl differed, the second matched): ${recrawled.join('; ')}`] : []),
    `  ${'combination'.padEnd(40)} ${'oss/local'.padEnd(9)} result`,
    ...rows,
    'allowed differences (each with its reason and where it rests):',
    ...ALLOWED.map((a) => `  - ${a.combo}: ${a.difference}\n      reason: ${a.reason}\n      ref: ${a.ref}`),
  ].join('\n');
  console.log(table);
  assert.ok(RUN.length >= 21 || only, 'fewer than 21 combinations');
  assert.deepEqual(unexplained, [], 'unexplained differences between the open-source server and the local service');
});
