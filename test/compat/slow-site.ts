// A small site for the restart tests (test/compat/restart.compat.ts): a home page linking
// /p/1../p/N, a sitemap listing them, robots.txt allowing all, and each /p/i answered after
// `delayMs` (changeable between scenarios), so that a job is surely running when the server is
// killed. Every request is recorded, so a test can count pages fetched more than once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowSite {
  /** http://<host>:<port> (no trailing slash). */
  url: string;
  /** The content pages' URLs, /p/1 to /p/N. */
  pages: string[];
  /** How long each /p/i waits before it answers, ms. */
  delayMs: number;
  /** GET requests of content pages, path → how many times fetched. */
  fetches(): Map<string, number>;
  resetFetches(): void;
  close(): Promise<void>;
}

export async function startSlowSite(options: { host: string; pages: number; delayMs: number }): Promise<SlowSite> {
  const counts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let origin = '';
  const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
  const paths = Array.from({ length: options.pages }, (_, i) => `/p/${i + 1}`);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    };
    if (path === '/robots.txt') return send(200, 'text/plain', `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
    if (path === '/sitemap.xml') {
      const urls = ['/', ...paths].map((p) => `<url><loc>${origin}${p}</loc></url>`).join('');
      return send(200, 'application/xml', `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    }
    if (path === '/') return send(200, 'text/html', html('Home', `<ul>${paths.map((p) => `<li><a href="${p}">Page ${p.slice(3)}</a></li>`).join('')}</ul>`));
    const n = /^\/p\/(\d+)$/.exec(path)?.[1];
    if (!n || Number(n) < 1 || Number(n) > options.pages) return send(404, 'text/html', html('Not found', ''));
    if (req.method === 'GET') counts.set(path, (counts.get(path) ?? 0) + 1);
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(200, 'text/html', html(`Page ${n}`, `<p>Content of page ${n}.</p><a href="/">Home</a>`));
    }, site.delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, options.host, resolve));
  origin = `http://${options.host}:${(server.address() as AddressInfo).port}`;
  const site: SlowSite = {
    url: origin,
    pages: paths.map((p) => `${origin}${p}`),
    delayMs: options.delayMs,
    fetches: () => new Map(counts),
    resetFetches: () => counts.clear(),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return site;
}
