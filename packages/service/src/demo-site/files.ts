// Non-page resources of the demo site: robots.txt, sitemaps, images and the "load more" API.
import { gzipSync } from 'node:zlib';
import { esc } from './render.js';
import { CATALOG_PER_PAGE, type HostKind, type SiteLayout } from './layout.js';
import { NAMED_ROBOTS_AGENT } from './manifest.js';

export const MAIN_SITEMAPS = ['/sitemaps/pages.xml', '/sitemaps/blog.xml', '/sitemaps/docs.xml', '/sitemaps/shop.xml.gz'] as const;

export function robotsTxt(host: HostKind, origin: string): string {
  if (host === 'alias') return `User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`;
  return [
    '# Demo site robots.txt',
    'User-agent: *',
    'Disallow: /private/',
    'Disallow: /api/',
    'Allow: /',
    '',
    `User-agent: ${NAMED_ROBOTS_AGENT}`,
    'Disallow: /shop',
    'Disallow: /private/',
    '',
    `Sitemap: ${origin}/sitemap.xml`,
    `Sitemap: ${origin}/sitemaps/pages.xml`,
    '',
  ].join('\n');
}

export function sitemapIndex(origin: string, lastmod: string): string {
  const items = MAIN_SITEMAPS.map((p) => `  <sitemap><loc>${esc(origin + p)}</loc><lastmod>${lastmod}</lastmod></sitemap>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items.join('\n')}\n</sitemapindex>\n`;
}

/** The urlset listing every page whose spec names `file` as its sitemap. */
export function urlset(layout: SiteLayout, host: HostKind, origin: string, file: string): string {
  const items: string[] = [];
  for (const spec of layout.specs) {
    if (spec.host !== host || spec.sitemap !== file) continue;
    items.push(`  <url><loc>${esc(origin + spec.path)}</loc><lastmod>${spec.lastmod}</lastmod></url>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items.join('\n')}\n</urlset>\n`;
}

export function gzip(text: string): Buffer {
  return gzipSync(Buffer.from(text));
}

export function svgImage(name: string): string {
  const label = esc(name.replace(/\.svg$/, ''));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200"><rect width="320" height="200" fill="#dde"/>`
    + `<text x="20" y="100">${label}</text></svg>\n`;
}

/** JSON for /api/items?page=K: the listed shop items, CATALOG_PER_PAGE per page. */
export function apiItems(layout: SiteLayout, page: number, titleOf: (path: string) => string) {
  const start = (page - 1) * CATALOG_PER_PAGE;
  const slice = page >= 1 ? layout.shopListed.slice(start, start + CATALOG_PER_PAGE) : [];
  return {
    page,
    items: slice.map((n) => ({ name: titleOf(`/shop/item-${n}`), url: `/shop/item-${n}` })),
    nextPage: start + CATALOG_PER_PAGE < layout.shopListed.length ? page + 1 : null,
  };
}
