// Shared by the crawl, batch scrape and map tests: the service with its job routes in
// front of a demo site, a JSON client, job waiters, a webhook receiver, and an oracle
// that computes a crawl's exact URL sets from the demo site's manifest.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceApp, type ServiceApp } from '../src/app.js';
import type { PageDocument, ScrapeEngine } from '../src/core/scrape.js';
import type { ServiceConfig } from '../src/core/service.js';
import type { TeamConfig } from '../src/core/teams.js';
import { HttpError } from '../src/core/http-error.js';
import { createResourceFetcher } from '../src/crawler/fetcher.js';
import { startDemoSite, type DemoSite, type DemoSiteOptions, type ManifestEntry, type SiteManifest } from '../src/demo-site/index.js';
import { silentLogger } from '../src/http/logger.js';
import { listen } from '../src/http/server.js';
import { createHttpScrapeEngine } from '../src/scrape/index.js';
import { registerJobRoutes } from '../src/jobs/index.js';
import { extractPageLinks } from '../src/map/page-links.js';
import { call as rawCall, team, type ApiAnswer } from './platform-helpers.js';

export { team };
export type { ApiAnswer };

/**
 * A plain HTTP engine (fetch, links, title; markdown is the raw text), for comparisons
 * with the real engine and tests that need no conversion.
 */
export function fetchScrapeEngine(): ScrapeEngine & { calls: string[] } {
  const fetcher = createResourceFetcher({ allowNonLoopback: false });
  const calls: string[] = [];
  return {
    calls,
    async scrape(url, options, ctx) {
      calls.push(url);
      let res;
      try {
        res = await fetcher.fetch(url, { signal: ctx.signal });
      } catch (err) {
        if (ctx.signal?.aborted) throw err;
        throw new HttpError(500, `All scrape engines failed: ${err instanceof Error ? err.message : String(err)}`, { code: 'SCRAPE_ALL_ENGINES_FAILED' });
      }
      const html = /html/i.test(res.contentType);
      const text = html || /text|json|xml/i.test(res.contentType) ? res.body.toString('utf8') : '';
      const page = html ? extractPageLinks(text, res.url) : { links: [] as string[] };
      const document: PageDocument = {
        markdown: text,
        metadata: {
          sourceURL: url,
          url: res.url,
          statusCode: res.status,
          scrapeId: ctx.scrapeId,
          contentType: res.contentType,
          ...('title' in page && page.title ? { title: page.title } : {}),
          ...(res.status >= 400 ? { error: `HTTP ${res.status}` } : {}),
        },
      };
      return { document, discoveredLinks: page.links, engine: 'http', options };
    },
    close: () => fetcher.close(),
  };
}

export interface Instrumented extends ScrapeEngine {
  calls: Array<{ url: string; teamId: string; options: Record<string, unknown>; aborted: boolean }>;
  maxInFlight: Map<string, number>;
  /** Extra latency per page, ms (set between tests). */
  delayMs: number;
  /**
   * Holds pages (until aborted) from now until the returned release is called, after letting
   * the next `passing` pages through; reset() releases too.
   */
  hold(passing?: number): () => void;
  reset(): void;
}

/** The service's real HTTP engine, without its page cache so every test sees real fetches. */
export function realScrapeEngine(): ScrapeEngine {
  return createHttpScrapeEngine({ cache: false });
}

/** Wraps an engine to record calls, options, aborts and the peak pages in flight per team. */
export function instrumentedEngine(inner: ScrapeEngine = realScrapeEngine()): Instrumented {
  const inFlight = new Map<string, number>();
  let gate: { promise: Promise<void>; release: () => void; passing: number } | undefined;
  const engine: Instrumented = {
    calls: [],
    maxInFlight: new Map(),
    delayMs: 0,
    hold(passing = 0) {
      let release!: () => void;
      const held = { promise: new Promise<void>((resolve) => { release = resolve; }), release: () => release(), passing };
      gate = held;
      return () => {
        if (gate === held) gate = undefined;
        held.release();
      };
    },
    reset() {
      engine.calls.length = 0;
      engine.maxInFlight.clear();
      engine.delayMs = 0;
      gate?.release();
      gate = undefined;
    },
    async scrape(url, options, ctx) {
      const teamId = ctx.team.id;
      const call = { url, teamId, options, aborted: false };
      engine.calls.push(call);
      const now = (inFlight.get(teamId) ?? 0) + 1;
      inFlight.set(teamId, now);
      engine.maxInFlight.set(teamId, Math.max(now, engine.maxInFlight.get(teamId) ?? 0));
      let held: Promise<void> | undefined;
      if (gate && gate.passing > 0) gate.passing--;
      else held = gate?.promise;
      try {
        if (engine.delayMs > 0) {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, engine.delayMs);
            ctx.signal?.addEventListener('abort', () => {
              clearTimeout(timer);
              call.aborted = true;
              reject(new Error('aborted'));
            }, { once: true });
          });
        }
        if (held) {
          const until = held;
          await new Promise<void>((resolve, reject) => {
            const onAbort = () => {
              call.aborted = true;
              reject(new Error('aborted'));
            };
            if (ctx.signal?.aborted) return onAbort();
            ctx.signal?.addEventListener('abort', onAbort, { once: true });
            void until.then(() => {
              ctx.signal?.removeEventListener('abort', onAbort);
              resolve();
            });
          });
        }
        return await inner.scrape(url, options, ctx);
      } finally {
        inFlight.set(teamId, (inFlight.get(teamId) ?? 1) - 1);
      }
    },
    close: () => inner.close(),
  };
  return engine;
}

export interface JobsStack {
  api: string;
  site: DemoSite;
  app: ServiceApp;
  engine: ScrapeEngine;
  call(method: string, path: string, opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<ApiAnswer>;
  close(): Promise<void>;
}

export interface StackOptions {
  teams?: TeamConfig[];
  config?: Partial<ServiceConfig>;
  site?: DemoSiteOptions;
  engine?: ScrapeEngine;
  now?: () => number;
  /** API key used by `call` unless given. */
  key?: string;
}

export async function startJobsStack(opts: StackOptions = {}): Promise<JobsStack> {
  const site = await startDemoSite(opts.site ?? {});
  const engine = opts.engine ?? realScrapeEngine();
  const app = createServiceApp({
    teams: opts.teams ?? [team('a', { credits: 100_000, concurrency: 8 })],
    config: opts.config,
    scrapeEngine: engine,
    logger: silentLogger,
    now: opts.now,
  });
  // The platform registers the job routes once it wires them; until then, do it here.
  if (!app.router.list().some((r) => r.pattern === '/v2/crawl')) registerJobRoutes(app.router, app.context);
  const server = await listen(app.listener);
  return {
    api: server.url,
    site,
    app,
    engine,
    call: (method, path, o = {}) => rawCall(server.url, method, path, { key: opts.key ?? 'key-a', ...o }),
    close: async () => {
      await Promise.all([server.close(), app.close()]);
      await site.close();
    },
  };
}

export interface JobResult {
  status: string;
  last: Record<string, unknown>;
  docs: PageDocument[];
  urls: string[];
  pages: number;
}

/** Polls a job until it leaves `scraping`, then reads every page of results via `next`. */
export async function waitForJob(stack: JobsStack, path: string, opts: { timeoutMs?: number; key?: string } = {}): Promise<JobResult> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const res = await stack.call('GET', `${path}?limit=1`, { key: opts.key });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.text}`);
    if (res.body.status !== 'scraping') break;
    if (Date.now() > deadline) throw new Error(`job ${path} still running after ${opts.timeoutMs ?? 60_000} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return collect(stack, path, opts.key);
}

/** Follows `next` from the first page; `query` is added to the first request. */
export async function collect(stack: JobsStack, path: string, key?: string, query = ''): Promise<JobResult> {
  const docs: PageDocument[] = [];
  let url: string | undefined = `${stack.api}${path}${query}`;
  let last: Record<string, unknown> = {};
  let pages = 0;
  while (url) {
    const rel = url.slice(stack.api.length);
    const res = await stack.call('GET', rel, { key });
    if (res.status !== 200) throw new Error(`GET ${rel} answered ${res.status}: ${res.text}`);
    last = res.body as Record<string, unknown>;
    pages++;
    docs.push(...(last.data as PageDocument[]));
    url = last.next as string | undefined;
    if (pages > 10_000) throw new Error('too many pages');
  }
  return { status: last.status as string, last, docs, urls: docs.map((d) => d.metadata.sourceURL), pages };
}

/** Polls `condition` until it holds; the deadline only catches a condition that never comes. */
export async function eventually(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Polls `probe` until it answers a value, and returns it; the deadline only catches one that never comes. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sorted copy, for set comparisons with readable diffs. */
export function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}

// ---- webhook receiver ----

export interface Delivery {
  path: string;
  body: { success: boolean; type: string; id: string; webhookId: string; data: unknown[]; error?: string; metadata?: Record<string, string> };
  headers: Record<string, string | string[] | undefined>;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Resolves once `predicate` holds for the deliveries received so far. */
  until(predicate: (d: Delivery[]) => boolean, timeoutMs?: number): Promise<Delivery[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '/', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery['body'], headers: req.headers });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deliveries,
    async until(predicate, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(deliveries)) {
        if (Date.now() > deadline) throw new Error(`webhook deliveries incomplete: ${deliveries.map((d) => d.body.type).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return deliveries;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---- crawl oracle ----

export interface OracleOptions {
  start: string;
  sitemap?: 'skip' | 'include' | 'only';
  maxDiscoveryDepth?: number;
  includePaths?: string[];
  excludePaths?: string[];
  regexOnFullURL?: boolean;
  crawlEntireDomain?: boolean;
  ignoreQueryParameters?: boolean;
  /** Whose robots.txt rules apply; 'none' = ignoreRobotsTxt. */
  robots?: '*' | 'named' | 'none';
}

export interface OracleResult {
  /** URLs that end in `data` (error pages included, with their metadata.statusCode). */
  ok: Set<string>;
  /** URLs listed under errors (engine failures only; none on the demo site). */
  failed: Set<string>;
  robotsBlocked: Set<string>;
}

/**
 * What a crawl of the demo site's main host must return, by a plain breadth-first walk
 * over the manifest's links (same host, no external or alias links). Independent of the
 * crawler's code: it reads the manifest, never the site.
 */
export function expectedCrawl(manifest: SiteManifest, o: OracleOptions): OracleResult {
  const start = new URL(o.start);
  const startDir = start.pathname.endsWith('/') ? start.pathname : `${start.pathname}/`;
  const inc = (o.includePaths ?? []).map((p) => new RegExp(p));
  const exc = (o.excludePaths ?? []).map((p) => new RegExp(p));
  const sitemap = o.sitemap ?? 'include';
  // A trailing slash does not make another page; with ignoreQueryParameters neither does the query.
  const keyOf = (u: URL) => (o.ignoreQueryParameters ? u.origin + u.pathname : u.origin + u.pathname + u.search).replace(/(.)\/+(\?|$)/, '$1$2');
  const isFile = (u: URL) => /\.(png|jpe?g|gif|css|js|ico|svg|tiff|zip|exe|dmg|mp4|mp3|wav|pptx|xlsx|avi|flv|woff2?|ttf|webp|inc)$/i.test(u.pathname);
  const excluded = (u: URL) => exc.some((r) => r.test(o.regexOnFullURL ? u.href : u.pathname));
  const visitable = (u: URL): boolean => {
    if (u.host !== start.host || isFile(u)) return false;
    if (!o.crawlEntireDomain && u.pathname !== start.pathname && !u.pathname.startsWith(startDir)) return false;
    const subject = o.regexOnFullURL ? u.href : u.pathname;
    if (excluded(u)) return false;
    return inc.length === 0 || inc.some((r) => r.test(subject));
  };
  const isBlocked = (url: string): boolean => {
    const entry = manifest.get(url);
    return Boolean(entry && (o.robots ?? '*') !== 'none' && (o.robots === 'named' ? entry.robotsDisallowedNamedAgent : entry.robotsDisallowed));
  };
  const result: OracleResult = { ok: new Set(), failed: new Set(), robotsBlocked: new Set() };
  /** A disallowed URL met on a page of its host (or in the sitemap) is listed, whatever depth, scope or includes say; excludes hide it. */
  const meet = (url: string, on: URL) => {
    const u = new URL(url);
    if (u.hostname === on.hostname && !isFile(u) && !excluded(u) && isBlocked(url)) result.robotsBlocked.add(url);
  };
  const seen = new Set<string>();
  const queue: Array<{ url: string; depth: number }> = [{ url: start.href, depth: 0 }];
  if (sitemap !== 'skip') {
    for (const e of manifest.entries) {
      if (e.host !== 'main' || !e.inSitemap) continue;
      meet(e.url, start);
      queue.push({ url: e.url, depth: 0 });
    }
  }
  while (queue.length > 0) {
    const { url, depth } = queue.shift() as { url: string; depth: number };
    const u = new URL(url);
    if (!visitable(u) || seen.has(keyOf(u))) continue;
    if (isBlocked(url)) {
      if (url === start.href) result.robotsBlocked.add(url);
      continue;
    }
    seen.add(keyOf(u));
    const entry: ManifestEntry | undefined = manifest.get(url);
    // Pages that answered 404 or 500 are documents too (metadata.statusCode); a missing page has no links.
    result.ok.add(url);
    if (sitemap === 'only') continue;
    for (const link of entry?.links ?? []) meet(link, u);
    if (o.maxDiscoveryDepth !== undefined && depth >= o.maxDiscoveryDepth) continue;
    for (const link of entry?.links ?? []) queue.push({ url: link, depth: depth + 1 });
  }
  return result;
}
