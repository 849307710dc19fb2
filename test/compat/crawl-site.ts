// The test site of the crawl differential test (test/compat/crawl-differential.compat.ts):
// 16 documents reachable from the start page of a main host (the sitemap's orphans included),
// 7 more in a shop section of their own, and 3 pages on a second host on another 127.0.0.x
// address; a sitemap that lists orphans, robots.txt, a 404 link, redirects (a slash redirect,
// a page moved, a redirecting start URL), an image link and query-string variants.
// Deterministic: the same pages and links on every run, and laid out so that a crawler
// working on many pages at once (the open-source server scrapes 8 at a time, in whatever
// order its queue hands them out) finds the same pages whatever the timing:
// - no page is linked under two URL variants (`/a` and `/a/`) that answer differently;
// - the pages a maxDiscoveryDepth combination reaches have one discovery depth (every
//   shorter path to a page is also the one found first);
// - `limit` combinations stop inside what the start page (sitemap skip) or the sitemap
//   (with the sitemap) hands out before any other page is read.
// Small on purpose: the open-source server renders every page in Chromium (about one page
// a second on 2 busy cores), and each of the 22 combinations crawls the site again.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CrawlSite {
  /** http://<host>:<port> of the main host (no trailing slash). */
  url: string;
  /** http://<host>:<port> of the second host. */
  other: string;
  close(): Promise<void>;
}

type Page = { links: string[]; status?: number; redirect?: string; body?: string; type?: string };

/** Page table of the main host: path → links (absolute paths, or full URLs with {OTHER}). */
function mainPages(): Map<string, Page> {
  const p = new Map<string, Page>();
  const page = (path: string, links: string[]) => p.set(path, { links });
  // The start page: every kind of link once (robots-blocked, 404, image, moved page, second host).
  page('/', ['/docs/', '/blog/', '/about', '/private/admin', '/missing-page', '/logo.png', '/old-about', '{OTHER}/partners/']);
  page('/about', ['/']);
  // docs: a chain for depth, a slash redirect, a robots-blocked area, an orphan in the sitemap.
  page('/docs/', ['/docs/guide', '/docs/api/', '/docs/internal/notes', '/blog/']);
  page('/docs/guide', ['/docs/guide/step-1']);
  page('/docs/guide/step-1', ['/docs/guide/step-2', '/docs/internal/draft']);
  page('/docs/guide/step-2', ['/private/step-log', '/docs/']);
  page('/docs/api/', ['/docs/api/v2']);
  page('/docs/api/v2/', ['/docs/api/v2/auth']);
  page('/docs/api/v2/auth', ['/docs/api/v2/']);
  page('/docs/orphan', ['/docs/']);
  // blog: two posts (the second one excluded by a pattern) and an orphan in the sitemap.
  page('/blog/', ['/blog/post-1', '/blog/post-2']);
  page('/blog/post-1', ['/blog/']);
  page('/blog/post-2', ['/blog/']);
  page('/blog/orphan', ['/blog/']);
  // shop: query-string variants of the list and of an item. Linked from no other section and
  // absent from the sitemap: only the combinations that start at /shop/ crawl it.
  page('/shop/', ['/shop/list?sort=asc', '/shop/list', '/shop/item-1', '/shop/item-2']);
  page('/shop/list', ['/shop/item-1?ref=list', '/shop/item-3?ref=list']);
  for (let i = 1; i <= 3; i++) page(`/shop/item-${i}`, ['/shop/']);
  // robots.txt disallows /private/ and /docs/internal/: these exist but must never be fetched.
  for (const path of ['/private/admin', '/private/step-log', '/docs/internal/notes', '/docs/internal/draft']) page(path, ['/']);
  // Redirects: a slash redirect, a moved page, a redirecting start URL.
  p.set('/docs/api/v2', { links: [], status: 301, redirect: '/docs/api/v2/' });
  p.set('/old-about', { links: [], status: 301, redirect: '/about' });
  p.set('/start', { links: [], status: 301, redirect: '/docs/' });
  p.set('/logo.png', { links: [], type: 'image/png', body: 'PNG' });
  return p;
}

function otherPages(): Map<string, Page> {
  const p = new Map<string, Page>();
  p.set('/partners/', { links: ['/partners/a', '{MAIN}/about'] });
  p.set('/partners/a', { links: ['/partners/b'] });
  p.set('/partners/b', { links: ['/partners/'] });
  return p;
}

/**
 * Sitemap of the main host, in this order (limit with the sitemap takes them in file
 * order). Each entry links only to pages one level below the start page, or below
 * itself, so no sitemap page offers a shorter way to a page than the one a crawl finds first.
 */
const SITEMAP = [
  '/blog/orphan', '/docs/orphan', '/private/sitemapped', '/docs/api/v2/', '/blog/post-1',
];

const ROBOTS = (origin: string) => `User-agent: *\nDisallow: /private/\nDisallow: /docs/internal/\n\nSitemap: ${origin}/sitemap.xml\n`;

function html(title: string, links: string[], resolve: (l: string) => string): string {
  const items = links.map((l) => `<li><a href="${resolve(l).replace(/&/g, '&amp;')}">${l}</a></li>`).join('');
  return `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Content of ${title}, a page of the crawl test site.</p><ul>${items}</ul></main></body></html>`;
}

async function serve(host: string, handler: (path: string, res: ServerResponse) => void): Promise<Server> {
  const server = createServer((req, res) => handler(new URL(req.url ?? '/', 'http://x').pathname + (new URL(req.url ?? '/', 'http://x').search), res));
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, host, ok);
  });
  return server;
}

export async function startCrawlSite(opts: { host?: string; otherHost?: string } = {}): Promise<CrawlSite> {
  const host = opts.host ?? '127.0.0.10';
  const otherHost = opts.otherHost ?? '127.0.0.11';
  const main = mainPages();
  const other = otherPages();
  let mainUrl = '';
  let otherUrl = '';
  const resolve = (l: string) => l.replace('{OTHER}', otherUrl).replace('{MAIN}', mainUrl);
  const handle = (pages: Map<string, Page>, own: () => string) => (pathAndQuery: string, res: ServerResponse) => {
    const path = pathAndQuery.split('?')[0];
    if (own() === mainUrl && path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(ROBOTS(mainUrl));
      return;
    }
    if (own() === mainUrl && path === '/sitemap.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${SITEMAP.map((s) => `  <url><loc>${mainUrl}${s}</loc></url>`).join('\n')}\n</urlset>\n`);
      return;
    }
    const page = pages.get(path) ?? (path.startsWith('/private/') ? { links: ['/'] } : undefined);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(html('Not found', ['/'], (l) => `${own()}${l}`));
      return;
    }
    if (page.redirect) {
      res.writeHead(page.status ?? 301, { location: `${own()}${page.redirect}` });
      res.end();
      return;
    }
    if (page.type) {
      res.writeHead(200, { 'content-type': page.type });
      res.end(page.body ?? '');
      return;
    }
    res.writeHead(page.status ?? 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html(`Page ${pathAndQuery}`, page.links, (l) => (l.startsWith('{') ? resolve(l) : `${own()}${l}`)));
  };
  const mainServer = await serve(host, handle(main, () => mainUrl));
  mainUrl = `http://${host}:${(mainServer.address() as AddressInfo).port}`;
  const otherServer = await serve(otherHost, handle(other, () => otherUrl));
  otherUrl = `http://${otherHost}:${(otherServer.address() as AddressInfo).port}`;
  return {
    url: mainUrl,
    other: otherUrl,
    close: async () => {
      await Promise.all([mainServer, otherServer].map((s) => new Promise<void>((ok) => { s.closeAllConnections(); s.close(() => ok()); })));
    },
  };
}
