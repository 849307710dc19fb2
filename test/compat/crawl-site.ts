// The test site of the crawl differential test (test/compat/crawl-differential.compat.ts):
// about 70 pages on a main host plus a second host on another 127.0.0.x address, with a
// sitemap that lists orphans, robots.txt, a 404 link, redirects (a slash redirect, a page
// moved, a redirecting start URL), an image link and query-string variants.
// Deterministic: the same pages and links on every run.
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
  page('/', ['/docs/', '/blog/', '/shop/', '/about', '/private/admin', '/missing-page', '/logo.png', '/old-about', '{OTHER}/partners/']);
  page('/about', ['/', '/contact']);
  page('/contact', ['/about']);
  // docs: a chain for depth, a slash redirect, a robots-blocked area, an orphan in the sitemap.
  page('/docs/', ['/docs/intro', '/docs/guide', '/docs/api/', '/docs/internal/notes', '/blog/']);
  page('/docs/intro', ['/docs/guide', '/docs/faq']);
  page('/docs/faq', ['/docs/intro']);
  page('/docs/guide', ['/docs/guide/step-1']);
  page('/docs/guide/step-1', ['/docs/guide/step-2', '/docs/internal/draft']);
  page('/docs/guide/step-2', ['/docs/guide/step-3']);
  page('/docs/guide/step-3', ['/docs/guide/step-4', '/private/step-log']);
  page('/docs/guide/step-4', ['/docs/guide/']);
  page('/docs/api/', ['/docs/api/v1', '/docs/api/v2', '/docs/api/errors']);
  page('/docs/api/v1', ['/docs/api/', '/docs/api/v1/auth']);
  page('/docs/api/v1/auth', ['/docs/api/v1']);
  page('/docs/api/v2/', ['/docs/api/v2/auth', '/docs/api/v2/limits']);
  page('/docs/api/v2/auth', ['/docs/api/v2/']);
  page('/docs/api/v2/limits', ['/docs/api/v2/']);
  page('/docs/api/errors', ['/missing-page']);
  page('/docs/orphan', ['/docs/']);
  // blog: 12 posts, each linking to the next; two orphans in the sitemap.
  page('/blog/', ['/blog/post-1', '/blog/post-2', '/blog/post-3', '/blog/tag/news']);
  for (let i = 1; i <= 12; i++) page(`/blog/post-${i}`, [i < 12 ? `/blog/post-${i + 1}` : '/blog/', '/blog/tag/news', ...(i === 5 ? ['/blog/tag/release'] : [])]);
  page('/blog/tag/news', ['/blog/post-1']);
  page('/blog/tag/release', ['/blog/post-5']);
  page('/blog/orphan-1', ['/blog/']);
  page('/blog/orphan-2', ['/blog/']);
  // shop: 10 items, query-string variants of the list and items.
  page('/shop/', ['/shop/list?sort=asc', '/shop/list?sort=desc', '/shop/list', ...Array.from({ length: 6 }, (_, i) => `/shop/item-${i + 1}`)]);
  page('/shop/list', Array.from({ length: 10 }, (_, i) => `/shop/item-${i + 1}?ref=list`));
  for (let i = 1; i <= 10; i++) page(`/shop/item-${i}`, ['/shop/', `/shop/item-${i}?ref=related`]);
  page('/shop/orphan', ['/shop/']);
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
  p.set('/partners/', { links: ['/partners/a', '/partners/b', '{MAIN}/about'] });
  p.set('/partners/a', { links: ['/partners/'] });
  p.set('/partners/b', { links: ['/partners/c'] });
  p.set('/partners/c', { links: ['/partners/'] });
  return p;
}

/** Sitemap of the main host, in this order (limit with the sitemap takes them in file order). */
const SITEMAP = [
  '/blog/orphan-1', '/blog/orphan-2', '/docs/orphan', '/shop/orphan',
  '/docs/api/v2/', '/docs/guide/step-4', '/blog/post-12', '/shop/item-10',
  '/about', '/private/sitemapped',
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
