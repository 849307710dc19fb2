// Serves the demo site (layout in manifest.ts) over node:http on loopback. The Host header picks
// the main site or the blog.localhost alias; everything else is computed from the layout.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALIAS_HOSTNAME, buildLayout, checkRevision, type HostKind, type PageSpec, type SiteLayout } from './layout.js';
import { DEFAULT_PAGES, DEFAULT_SEED, manifestFromLayout, type SiteManifest } from './manifest.js';
import { renderErrorPage, renderJsPage, renderPage } from './render.js';
import { apiItems, gzip, robotsTxt, sitemapIndex, svgImage, urlset } from './files.js';
import { buildDemoPdf } from './pdf.js';

export interface DemoSiteOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** A loopback address (default 127.0.0.1); servers that refuse 127.0.0.1 take 127.0.0.10. */
  host?: string;
  /** Generated content pages, default 60 (3..100000). */
  pages?: number;
  seed?: number;
  /** Link /big and /big/1..bigPages?kb=bigKb from the home page (and list them in the manifest). */
  bigPages?: number;
  bigKb?: number;
  /** Default delay of /slow, ms (3000). */
  slowMs?: number;
  /** Site revision, an integer ≥ 0 (default 0 = the original site); what changes is in manifest.ts. */
  revision?: number;
}

export interface DemoRequest {
  method: string;
  /** Host header as sent, e.g. "127.0.0.1:4000" or "blog.localhost:4000". */
  host: string;
  /** Path plus query string. */
  path: string;
  headers: IncomingHttpHeaders;
  at: number;
}

export interface DemoSite {
  /** Origin of the main host, e.g. "http://127.0.0.1:4000" (no trailing slash). */
  url: string;
  /** Origin of the host alias, "http://blog.localhost:4000". */
  aliasUrl: string;
  port: number;
  /** Describes the site at its current revision (a new object after setRevision). */
  readonly manifest: SiteManifest;
  /** The revision being served. */
  readonly revision: number;
  /**
   * Serves `revision` (an integer ≥ 0, else a TypeError) from now on: later requests and
   * `manifest` see it. Revisions are states, not steps: any revision can follow any other.
   */
  setRevision(revision: number): void;
  /** Every request received, in order (for "was it fetched?" assertions). */
  readonly requests: readonly DemoRequest[];
  resetRequests(): void;
  close(): Promise<void>;
}

const HTML = 'text/html; charset=utf-8';
const MAX_SLOW_MS = 120_000;
const MAX_BIG_KB = 20_000;

function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array, headers: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': type, 'content-length': String(bytes.byteLength), ...headers });
  res.end(bytes);
}

function intParam(value: string | null, fallback: number, min: number, max: number): number {
  const n = value === null ? NaN : Number.parseInt(value, 10);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

export async function startDemoSite(options: DemoSiteOptions = {}): Promise<DemoSite> {
  const host = options.host ?? '127.0.0.1';
  if (options.revision !== undefined) checkRevision(options.revision);
  const slowMs = options.slowMs ?? 3000;
  const requests: DemoRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let layout: SiteLayout | undefined;
  let pdf: Promise<Uint8Array> | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const hostHeader = (req.headers.host ?? `${host}:${port}`).toLowerCase();
    const hostname = hostHeader.replace(/:\d+$/, '');
    const kind: HostKind = hostname === ALIAS_HOSTNAME ? 'alias' : 'main';
    const origin = `http://${hostHeader}`;
    const url = new URL(req.url ?? '/', origin);
    const path = url.pathname + url.search;
    requests.push({ method: req.method ?? 'GET', host: hostHeader, path, headers: req.headers, at: Date.now() });
    if (!layout) return send(res, 503, 'text/plain', 'starting');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'Method Not Allowed', { allow: 'GET, HEAD' });

    const ua = req.headers['user-agent'] ?? '';
    const echo = req.headers['x-demo-echo'];
    const ctx = { origin, mobile: /Mobile/i.test(ua), echo: Array.isArray(echo) ? echo.join(', ') : echo };
    const p = url.pathname;

    if (p === '/robots.txt') return send(res, 200, 'text/plain; charset=utf-8', robotsTxt(kind, origin));
    if (kind === 'alias' && p === '/sitemap.xml') return send(res, 200, 'application/xml', urlset(layout, 'alias', origin, '/sitemap.xml'));
    if (kind === 'main') {
      if (p === '/sitemap.xml') return send(res, 200, 'application/xml', sitemapIndex(origin, '2024-12-31'));
      if (p === '/sitemaps/shop.xml.gz') return send(res, 200, 'application/gzip', gzip(urlset(layout, 'main', origin, p)));
      if (/^\/sitemaps\/(pages|blog|docs)\.xml$/.test(p)) return send(res, 200, 'application/xml', urlset(layout, 'main', origin, p));
      if (p === '/files/report.pdf') {
        pdf ??= buildDemoPdf();
        return send(res, 200, 'application/pdf', await pdf);
      }
      if (p === '/api/items') {
        const page = intParam(url.searchParams.get('page'), 1, 1, 1_000_000);
        const l = layout;
        const body = apiItems(l, page, (itemPath) => l.get('main', itemPath)?.title ?? itemPath);
        return send(res, 200, 'application/json', JSON.stringify(body));
      }
      if (p === '/slow') {
        const ms = intParam(url.searchParams.get('ms'), slowMs, 0, MAX_SLOW_MS);
        const spec = layout.get('main', '/slow')!;
        const l = layout;
        const timer = setTimeout(() => {
          timers.delete(timer);
          send(res, 200, HTML, renderPage(l, spec, ctx));
        }, ms);
        timers.add(timer);
        // A client that gave up (timeout) must not keep the timer alive.
        res.on('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
      const big = /^\/big\/(\d+)$/.exec(p);
      if (big) {
        const kb = intParam(url.searchParams.get('kb'), layout.options.bigKb, 1, MAX_BIG_KB);
        // Unlisted big pages borrow a plain chrome page's spec (nav, footer, no content links).
        const spec: PageSpec = layout.get('main', path) ?? {
          ...layout.get('main', '/slow')!,
          path, canonicalPath: p, section: 'big', template: 'big', kind: 'html', n: Number(big[1]),
          title: `Large page ${big[1]}`, sitemap: null,
        };
        return send(res, 200, HTML, renderPage(layout, spec, { ...ctx, bigKb: kb }));
      }
      if (p.startsWith('/images/') && p.endsWith('.svg')) return send(res, 200, 'image/svg+xml', svgImage(p.slice(8)));
    }

    const spec = layout.get(kind, path) ?? layout.get(kind, p);
    if (!spec) return send(res, 404, HTML, renderErrorPage(404, '404 Not Found', p));
    switch (spec.kind) {
      case 'redirect':
        return send(res, spec.status, HTML, `<!DOCTYPE html><title>Moved</title><p>Moved to ${spec.redirectTo}</p>`, { location: spec.redirectTo! });
      case 'error':
        return send(res, spec.status, HTML, renderErrorPage(spec.status, spec.title, p));
      case 'js':
        return send(res, 200, HTML, renderJsPage(spec));
      default:
        return send(res, spec.status, HTML, renderPage(layout, spec, ctx));
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `demo site error: ${String(err)}`);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host}:${port}`;
  try {
    layout = buildLayout({
      origin,
      pages: options.pages ?? DEFAULT_PAGES,
      seed: options.seed ?? DEFAULT_SEED,
      bigPages: options.bigPages,
      bigKb: options.bigKb,
      revision: options.revision,
    });
  } catch (err) {
    server.close();
    throw err;
  }
  let current: SiteLayout = layout;
  let manifest: SiteManifest | undefined;

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    aliasUrl: current.aliasOrigin,
    port,
    get manifest() {
      return (manifest ??= manifestFromLayout(current));
    },
    get revision() {
      return current.options.revision;
    },
    setRevision: (revision) => {
      const next = buildLayout({ ...current.options, revision: checkRevision(revision) });
      current = next;
      layout = next;
      manifest = undefined;
    },
    requests,
    resetRequests: () => {
      requests.length = 0;
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
