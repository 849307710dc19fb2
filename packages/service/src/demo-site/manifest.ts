/*
 * The demo site: a deterministic generated website (same `pages` + `seed` = same site), served by
 * startDemoSite() on 127.0.0.1 and described exactly by buildManifest(), so tests can compute the
 * expected URL sets of a crawl or a map without running a server.
 *
 * `pages` content pages (default 60, 3..100000) are dealt round-robin to blog, docs and shop:
 * content page i goes to section (i-1) % 3, so blog = ceil(p/3), docs = ceil((p-1)/3), shop = floor(p/3).
 *
 * MAIN HOST (the `url` origin; also answers as http://localhost:PORT)
 *   /                      home: latest 3 posts, the docs guides, /shop/item-F?ref=home (F = min(3, shop)),
 *                          /shop/catalog, /app/dashboard, the alias host, an external link
 *   /about                 table, a base64 data-URI image, link to the PDF, external link
 *   /blog, /blog/page/K    listing, 10 listed posts per page; pagination nav: first, prev, next, last.
 *                          /blog also links /blog/missing-post (answers 404)
 *   /blog/post-N           post: breadcrumbs, newer/older listed post, 2 related posts, share links
 *                          (external). Orphans: N ≡ 7 (mod 10), listed nowhere, only in the sitemap.
 *                          Not in the sitemap (links only): N ≡ 2 (mod 4). lang "de" when N ≡ 0 (mod 5),
 *                          else "en". Base64 image when N ≡ 1 (mod 3).
 *   /docs                  docs index: the guides, /files/report.pdf, /docs/broken-page (answers 500)
 *   /docs/guide-1/part-2/section-c/...
 *                          a 4-ary tree in heap order: docs node j's parent is floor((j-1)/4) (0 = /docs);
 *                          levels are named guide-N, part-N, section-a..d, topic-N, note-N, levelL-N.
 *                          Links: breadcrumbs (ancestors), children, previous/next sibling. Every docs
 *                          page has a GFM-style table. Not in the sitemap: j ≡ 0 (mod 5). lang "en-US".
 *   /shop, /shop/page/K    listing, 12 listed items per page; /shop links /shop/catalog
 *   /shop/item-N           item: breadcrumbs, previous/next listed item, 2 related items, a spec table.
 *                          Orphans: N ≡ 9 (mod 10). Not in the sitemap: N ≡ 5 (mod 6) unless orphan.
 *                          Item F links /shop/item-F?color=red; both query variants are separate URLs
 *                          with a canonical link to /shop/item-F. lang "en-GB".
 *   /shop/catalog          "load more": the first 10 listed items; button#load-more fetches
 *                          /api/items?page=2.. (JSON { page, items: [{ name, url }], nextPage }) and appends
 *   /app/dashboard         JavaScript-rendered: empty #root filled by an inline script
 *                          (<meta name="webdata:render" content="javascript">); no static links
 *   /files/report.pdf      a 2-page PDF made with pdf-lib; its text is DEMO_PDF_TEXT (pdf.ts)
 *   /private/, /private/report-1, /private/report-2
 *                          disallowed by robots.txt; linked from every page's footer
 *   /slow?ms=3000          answers after ms (default 3000, max 120000); linked from nowhere
 *   /old-blog (301 → /blog), /go/docs (302 → /docs), /go/alias (302 → alias /),
 *   /go/external (302 → external.invalid), /go/loop (302 → itself)    redirects, linked from nowhere
 *   /big/N?kb=K            ~K KiB of text (default 400, max 20000) for any N; linked from nowhere and
 *                          absent from the manifest, unless the `bigPages` option is set: then /big
 *                          (linked from home) lists /big/1?kb=K .. /big/{bigPages}?kb=K (K = bigKb)
 *   /robots.txt            User-agent: *        Disallow: /private/, /api/
 *                          User-agent: NosyBot  Disallow: /shop, /private/
 *                          Sitemap: /sitemap.xml and /sitemaps/pages.xml (also in the index)
 *   /sitemap.xml           sitemap index → /sitemaps/pages.xml, /sitemaps/blog.xml, /sitemaps/docs.xml,
 *                          /sitemaps/shop.xml.gz (gzip file, Content-Type application/gzip)
 *   /images/NAME.svg       small SVG images; anything else answers 404
 *   Every page with site chrome has a header nav (/, /blog, /docs, /shop, /about) and a footer
 *   (/about, /private/, two external.invalid links); main content sits in <main>, with
 *   breadcrumbs, pagination, related posts and share links as boilerplate inside it.
 *   Error pages, redirects, the PDF and the JS page carry no static links.
 *
 * ALIAS HOST http://blog.localhost:PORT (chosen by the Host header; `aliasUrl`)
 *   /, /posts/1..5, /about; post 5 is only in its sitemap. Pages link each other and
 *   http://127.0.0.1:PORT/blog. Own /robots.txt (allow all) and /sitemap.xml (urlset).
 *
 * Request echo, for tests: every HTML page has <meta name="webdata:device"> = "mobile" when the
 * User-Agent contains "Mobile", else "desktop", and <meta name="webdata:echo"> with the value of
 * the request header x-demo-echo when sent.
 *
 * REVISIONS (option `revision`, an integer ≥ 0, default 0; DemoSite.setRevision switches a live site):
 * revision 0 is the site described above. Going from revision r-1 to r (r ≥ 1) changes exactly:
 *   3 changed pages        /blog/post-1, /docs/guide-1 and /shop/item-1 (REVISED_PATHS; they exist
 *                          for every `pages` and are 1, 1 and 2 link hops from /) end their main content
 *                          with <p class="revision-note">Revised in revision r: ...</p> (text derived
 *                          from seed, path and r). Titles, descriptions, lastmod and links stay, so no
 *                          listing or other page changes. When item 1 is the featured item (pages 3..5:
 *                          one shop item) its ?ref=home and ?color=red variants show the same note.
 *   1 removed page         the r-th blog orphan (orphans in number order: post-7, post-17, ...) answers
 *                          404 and leaves the blog sitemap and the manifest; removals add up (revision r
 *                          lacks the first r orphans). Once every orphan is gone (the default 60 pages
 *                          have two, post-7 and post-17), later revisions remove nothing more; a site
 *                          with fewer than 7 posts (pages < 19) never removes any.
 *   2 added pages          /blog/new-r-1 and /blog/new-r-2 (they add up: revision r has those of 1..r):
 *                          post-like pages with chrome, breadcrumbs, 2 related posts and share links,
 *                          listed only in /sitemaps/blog.xml and linked from nowhere (inSitemap true,
 *                          depth null, like orphans); the posts they link to list them in `linkedFrom`.
 *   No other page's HTML changes; the sitemap index, robots.txt and the alias host stay as they are.
 *
 * MANIFEST: one entry per URL above (main and alias hosts; not robots.txt, sitemaps, images, the
 * API, or /big pages unless `bigPages`). `depth` = link hops from `/` of the entry's own host,
 * following same-host links only (null when no link reaches it); `linkedFrom`/`links` are absolute
 * URLs over all hosts (external ones included in `links`).
 */
import { withoutFragment } from 'webdata-contract';
import { pageHrefs, type HostKind, type PageKind, type Section, type SiteLayout, buildLayout } from './layout.js';

export const NAMED_ROBOTS_AGENT = 'NosyBot';

export interface ManifestEntry {
  url: string;
  /** Path plus query string. */
  path: string;
  host: HostKind;
  section: Section;
  kind: PageKind;
  status: number;
  depth: number | null;
  inSitemap: boolean;
  /** Path of the sitemap file listing it (on the same host), or null. */
  sitemap: string | null;
  linkedFrom: string[];
  /** The page's `<a href>` targets, absolute, deduplicated, in page order. */
  links: string[];
  canonicalUrl: string;
  title: string;
  description: string;
  language: string;
  keywords: string[];
  /** Disallowed for `User-agent: *`. */
  robotsDisallowed: boolean;
  /** Disallowed for NAMED_ROBOTS_AGENT. */
  robotsDisallowedNamedAgent: boolean;
  redirectTo?: string;
}

export interface SiteManifest {
  origin: string;
  aliasOrigin: string;
  pages: number;
  seed: number;
  /** The site revision the manifest describes (0 = the original site). */
  revision: number;
  namedRobotsAgent: string;
  entries: ManifestEntry[];
  get(url: string): ManifestEntry | undefined;
}

export interface ManifestOptions {
  origin: string;
  pages?: number;
  seed?: number;
  bigPages?: number;
  bigKb?: number;
  /** Site revision, an integer ≥ 0 (default 0); anything else is a TypeError. */
  revision?: number;
}

export const DEFAULT_PAGES = 60;
export const DEFAULT_SEED = 1;

export function robotsDisallows(host: HostKind, path: string, agent: '*' | 'named'): boolean {
  if (host !== 'main') return false;
  if (path.startsWith('/private/')) return true;
  return agent === '*' ? path.startsWith('/api/') : path.startsWith('/shop');
}

export function buildManifest(options: ManifestOptions): SiteManifest {
  return manifestFromLayout(buildLayout({
    origin: options.origin,
    pages: options.pages ?? DEFAULT_PAGES,
    seed: options.seed ?? DEFAULT_SEED,
    bigPages: options.bigPages,
    bigKb: options.bigKb,
    revision: options.revision,
  }));
}

export function manifestFromLayout(layout: SiteLayout): SiteManifest {
  const originOf = (host: HostKind) => (host === 'main' ? layout.origin : layout.aliasOrigin);
  const absolute = (host: HostKind, href: string) => (href.startsWith('/') ? originOf(host) + href : href);

  const entries: ManifestEntry[] = layout.specs.map((spec) => {
    const links = [...new Set(pageHrefs(layout, spec).map((href) => absolute(spec.host, href)))];
    return {
      url: absolute(spec.host, spec.path),
      path: spec.path,
      host: spec.host,
      section: spec.section,
      kind: spec.kind,
      status: spec.status,
      depth: null,
      inSitemap: spec.sitemap !== null,
      sitemap: spec.sitemap,
      linkedFrom: [],
      links,
      canonicalUrl: absolute(spec.host, spec.canonicalPath),
      title: spec.title,
      description: spec.description,
      language: spec.language,
      keywords: spec.keywords,
      robotsDisallowed: robotsDisallows(spec.host, spec.path, '*'),
      robotsDisallowedNamedAgent: robotsDisallows(spec.host, spec.path, 'named'),
      ...(spec.redirectTo ? { redirectTo: absolute(spec.host, spec.redirectTo) } : {}),
    };
  });

  const byUrl = new Map(entries.map((e) => [e.url, e]));
  for (const entry of entries) {
    for (const link of entry.links) byUrl.get(link)?.linkedFrom.push(entry.url);
  }

  // Breadth-first search per host from its root, over same-host links only.
  for (const host of ['main', 'alias'] as const) {
    const root = byUrl.get(`${originOf(host)}/`);
    if (!root) continue;
    const prefix = `${originOf(host)}/`;
    root.depth = 0;
    let frontier = [root];
    while (frontier.length > 0) {
      const next: ManifestEntry[] = [];
      for (const entry of frontier) {
        for (const link of entry.links) {
          if (!link.startsWith(prefix)) continue;
          const target = byUrl.get(link);
          if (target && target.depth === null) {
            target.depth = entry.depth! + 1;
            next.push(target);
          }
        }
      }
      frontier = next;
    }
  }

  return {
    origin: layout.origin,
    aliasOrigin: layout.aliasOrigin,
    pages: layout.options.pages,
    seed: layout.options.seed,
    revision: layout.options.revision,
    namedRobotsAgent: NAMED_ROBOTS_AGENT,
    entries,
    get: (url) => byUrl.get(url) ?? byUrl.get(withoutFragment(url)),
  };
}
