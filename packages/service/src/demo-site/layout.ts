// The demo site's page graph: every page it serves, with its links grouped by where they sit
// on the page. Pure and deterministic for (pages, seed, origin); the layout is documented in
// manifest.ts. The renderer and the manifest both read these specs, so the links in the HTML and
// the link graph in the manifest can never disagree.
import { createRng, isoDate, keywords, phrase, sentence } from './random.js';

export type HostKind = 'main' | 'alias';
export type PageKind = 'html' | 'pdf' | 'js' | 'slow' | 'error' | 'redirect';
export type Section =
  | 'home' | 'blog' | 'docs' | 'shop' | 'about' | 'app' | 'files' | 'private' | 'misc' | 'big' | 'alias';
export type Template =
  | 'home' | 'blog-index' | 'post' | 'docs-index' | 'doc' | 'shop-index' | 'item' | 'catalog' | 'about'
  | 'app' | 'private' | 'error' | 'pdf' | 'slow' | 'redirect' | 'big-index' | 'big'
  | 'alias-home' | 'alias-post' | 'alias-about';

export interface LinkRef {
  /** As written in the HTML: a root-relative path, or an absolute URL for other hosts. */
  href: string;
  text: string;
}

/** Link groups, in the order the renderer places them inside `<main>`. */
export interface PageLinks {
  /** `<nav class="breadcrumbs">` (boilerplate inside main). */
  breadcrumbs: LinkRef[];
  /** Links inside the article body. */
  content: LinkRef[];
  /** `<nav class="pagination">` (boilerplate inside main). */
  pagination: LinkRef[];
  /** `<aside class="related">` (boilerplate inside main). */
  related: LinkRef[];
  /** `<div class="share-links">` inside the article: external share buttons (boilerplate). */
  share: LinkRef[];
}

export interface PageSpec {
  host: HostKind;
  /** Path plus query string, exactly as linked. */
  path: string;
  /** Path of the canonical page (query variants point at their clean page). */
  canonicalPath: string;
  section: Section;
  template: Template;
  kind: PageKind;
  status: number;
  title: string;
  description: string;
  language: string;
  keywords: string[];
  lastmod: string;
  /** Path of the sitemap file that lists this page, or null. */
  sitemap: string | null;
  links: PageLinks;
  /** Whether the page has the site header (nav) and footer. */
  chrome: boolean;
  /** Section-local number (post-N, item-N, docs node N, big page N). */
  n?: number;
  redirectTo?: string;
  base64Image?: boolean;
  table?: boolean;
  /** Set on the REVISED_PATHS pages at revision ≥ 1: their main content names this revision. */
  revisedIn?: number;
}

export interface SiteOptions {
  /** Generated content pages (blog posts + docs pages + shop items), 3..100000. */
  pages: number;
  seed: number;
  /** Origin of the main host, e.g. "http://127.0.0.1:4000". */
  origin: string;
  /** When > 0, `/big` (linked from the home page) lists `/big/1?kb=..` ... `/big/{bigPages}?kb=..`. */
  bigPages?: number;
  bigKb?: number;
  /** Site revision, an integer ≥ 0 (default 0 = the original site); the rule is in manifest.ts. */
  revision?: number;
}

export interface SiteLayout {
  options: Required<SiteOptions>;
  origin: string;
  aliasOrigin: string;
  /** Every page, main host first, in a stable order. */
  specs: PageSpec[];
  get(host: HostKind, path: string): PageSpec | undefined;
  nav(host: HostKind): LinkRef[];
  footer(host: HostKind): LinkRef[];
  /** Listed (non-orphan) shop item numbers, for `/shop/catalog` and `/api/items`. */
  shopListed: number[];
  counts: { blog: number; docs: number; shop: number };
}

export const EXTERNAL_ORIGIN = 'http://external.invalid';
export const ALIAS_HOSTNAME = 'blog.localhost';
export const BLOG_PER_PAGE = 10;
export const SHOP_PER_PAGE = 12;
export const CATALOG_PER_PAGE = 10;
export const ALIAS_POSTS = 5;

const emptyLinks = (): PageLinks => ({ breadcrumbs: [], content: [], pagination: [], related: [], share: [] });

export function aliasOriginFor(origin: string): string {
  const port = new URL(origin).port;
  return `http://${ALIAS_HOSTNAME}${port ? `:${port}` : ''}`;
}

export const blogIndexPath = (k: number): string => (k === 1 ? '/blog' : `/blog/page/${k}`);
export const shopIndexPath = (k: number): string => (k === 1 ? '/shop' : `/shop/page/${k}`);
export const postPath = (n: number): string => `/blog/post-${n}`;
export const itemPath = (n: number): string => `/shop/item-${n}`;
export const bigPath = (n: number, kb: number): string => `/big/${n}?kb=${kb}`;

/** Blog posts n ≡ 7 (mod 10) and shop items n ≡ 9 (mod 10) are orphans: only in the sitemap. */
export const isBlogOrphan = (n: number): boolean => n % 10 === 7;
export const isShopOrphan = (n: number): boolean => n % 10 === 9;

/**
 * Revisions (see manifest.ts): each revision r ≥ 1 rewrites the body of these three pages (they
 * exist for every page count and are reached from / in one or two hops), removes the r-th blog
 * orphan and adds /blog/new-r-1 and /blog/new-r-2.
 */
export const REVISED_PATHS: readonly string[] = ['/blog/post-1', '/docs/guide-1', '/shop/item-1'];
export const ADDED_PER_REVISION = 2;
export const addedPostPath = (revision: number, k: number): string => `/blog/new-${revision}-${k}`;

/** Throws a TypeError unless `revision` is an integer ≥ 0. */
export function checkRevision(revision: unknown): number {
  if (typeof revision !== 'number' || !Number.isInteger(revision) || revision < 0) {
    throw new TypeError(`demo site: revision must be an integer ≥ 0, got ${typeof revision === 'string' ? JSON.stringify(revision) : String(revision)}`);
  }
  return revision;
}

/** Blog orphans removed at `revision`: the first min(revision, orphans) of them, in number order. */
export function removedBlogOrphans(blogCount: number, revision: number): number[] {
  const out: number[] = [];
  for (let n = 7; n <= blogCount && out.length < revision; n += 10) out.push(n);
  return out;
}

const DOC_LEVEL_NAMES = ['guide', 'part', 'section', 'topic', 'note'];

function docSegment(level: number, childIndex: number): { segment: string; label: string } {
  const name = DOC_LEVEL_NAMES[level - 1] ?? `level${level}`;
  const id = name === 'section' ? 'abcd'[childIndex] : String(childIndex + 1);
  return { segment: `${name}-${id}`, label: `${name.charAt(0).toUpperCase()}${name.slice(1)} ${id.toUpperCase()}` };
}

/** Pagination links of listing page k of `total`: first, previous, next, last (self excluded). */
function paginationLinks(k: number, total: number, pathOf: (k: number) => string): LinkRef[] {
  const targets: Array<[number, string]> = [[1, 'First'], [k - 1, 'Previous'], [k + 1, 'Next'], [total, 'Last']];
  const seen = new Set<number>();
  const out: LinkRef[] = [];
  for (const [p, text] of targets) {
    if (p < 1 || p > total || p === k || seen.has(p)) continue;
    seen.add(p);
    out.push({ href: pathOf(p), text: `${text} (page ${p})` });
  }
  return out;
}

/** Up to `count` distinct picks from `pool`, never `self`. */
function pickRelated(seed: number, key: string, pool: number[], self: number, count: number): number[] {
  const rng = createRng(seed, `related:${key}`);
  const out: number[] = [];
  // pool.length - 1 is exact when self is listed and merely cautious for orphans.
  const want = Math.min(count, pool.length - 1);
  let guard = 0;
  while (out.length < want && guard++ < 100) {
    const n = pool[rng.int(0, pool.length - 1)];
    if (n !== self && !out.includes(n)) out.push(n);
  }
  return out;
}

/** Caches a numbered title, computed at most once per number. */
function memo(fn: (n: number) => string): (n: number) => string {
  const cache: string[] = [];
  return (n) => (cache[n] ??= fn(n));
}

/** What the section builders share: the options, the page list and the plan of every section. */
interface SiteBuild {
  options: Required<SiteOptions>;
  seed: number;
  origin: string;
  aliasOrigin: string;
  specs: PageSpec[];
  byKey: Map<string, PageSpec>;
  blog: BlogPlan;
  shop: ShopPlan;
  docs: DocsPlan;
}

interface BlogPlan {
  count: number;
  /** Posts the index pages list (the orphans are only in the sitemap). */
  listed: number[];
  indexPages: number;
  title: (n: number) => string;
  /** Position of a listed post in `listed`. */
  position: Map<number, number>;
}

interface ShopPlan {
  count: number;
  listed: number[];
  indexPages: number;
  title: (n: number) => string;
  position: Map<number, number>;
  /** The item the home page features (linked with a query string). */
  featured: number;
}

/** A 4-ary tree in heap order under /docs: node j's parent is floor((j-1)/4), 0 = /docs. */
interface DocsPlan {
  count: number;
  path: string[];
  label: string[];
  title: (j: number) => string;
  children: (j: number) => number[];
}

type PageInit = Partial<PageSpec> & Pick<PageSpec, 'path' | 'section' | 'template' | 'title'>;

function siteOptions(input: SiteOptions): Required<SiteOptions> {
  const pages = input.pages;
  if (!Number.isInteger(pages) || pages < 3 || pages > 100_000) {
    throw new RangeError(`demo site: pages must be an integer from 3 to 100000, got ${pages}`);
  }
  return {
    pages,
    seed: input.seed,
    origin: new URL(input.origin).origin,
    bigPages: input.bigPages ?? 0,
    bigKb: input.bigKb ?? 400,
    revision: checkRevision(input.revision === undefined ? 0 : input.revision),
  };
}

function planBlog(seed: number, count: number): BlogPlan {
  const listed: number[] = [];
  for (let n = 1; n <= count; n++) if (!isBlogOrphan(n)) listed.push(n);
  return {
    count,
    listed,
    indexPages: Math.max(1, Math.ceil(listed.length / BLOG_PER_PAGE)),
    title: memo((n) => `Post ${n}: ${phrase(createRng(seed, `post-title:${n}`), 3)}`),
    position: new Map<number, number>(listed.map((n, i) => [n, i])),
  };
}

function planShop(seed: number, count: number): ShopPlan {
  const listed: number[] = [];
  for (let n = 1; n <= count; n++) if (!isShopOrphan(n)) listed.push(n);
  return {
    count,
    listed,
    indexPages: Math.max(1, Math.ceil(listed.length / SHOP_PER_PAGE)),
    title: memo((n) => `Item ${n}: ${phrase(createRng(seed, `item-title:${n}`), 2)}`),
    position: new Map<number, number>(listed.map((n, i) => [n, i])),
    featured: Math.min(3, count),
  };
}

function planDocs(seed: number, count: number): DocsPlan {
  const path: string[] = ['/docs'];
  const label: string[] = ['Docs'];
  const level: number[] = [0];
  for (let j = 1; j <= count; j++) {
    const parent = Math.floor((j - 1) / 4);
    level[j] = level[parent] + 1;
    const { segment, label: own } = docSegment(level[j], (j - 1) % 4);
    path[j] = `${path[parent]}/${segment}`;
    label[j] = parent === 0 ? own : `${label[parent]} / ${own}`;
  }
  return {
    count,
    path,
    label,
    title: memo((j) => `${label[j]}: ${phrase(createRng(seed, `doc-title:${j}`), 2)}`),
    children: (j) => {
      const out: number[] = [];
      for (let c = 4 * j + 1; c <= Math.min(4 * j + 4, count); c++) out.push(c);
      return out;
    },
  };
}

/** Adds a page with the defaults every page shares; query variants share their canonical page's metadata and text. */
function addPage(site: SiteBuild, init: PageInit): PageSpec {
  const host = init.host ?? 'main';
  const metaPath = init.canonicalPath ?? init.path;
  const rng = createRng(site.seed, `${host}${metaPath}:meta`);
  const spec: PageSpec = {
    host,
    canonicalPath: init.path,
    kind: 'html',
    status: 200,
    description: sentence(rng),
    language: 'en',
    keywords: keywords(rng, 3),
    lastmod: isoDate(site.seed, metaPath),
    sitemap: null,
    chrome: true,
    ...init,
    links: { ...emptyLinks(), ...init.links },
  };
  site.specs.push(spec);
  site.byKey.set(`${spec.host} ${spec.path}`, spec);
  return spec;
}

function addHomeAndAbout(site: SiteBuild): void {
  const { blog, docs, shop } = site;
  const home = addPage(site, { path: '/', section: 'home', template: 'home', title: 'Demo Site: Home', sitemap: '/sitemaps/pages.xml' });
  home.links.content = [
    ...blog.listed.slice(0, 3).map((n) => ({ href: postPath(n), text: blog.title(n) })),
    ...docs.children(0).map((j) => ({ href: docs.path[j], text: docs.title(j) })),
    { href: `${itemPath(shop.featured)}?ref=home`, text: `Featured: ${shop.title(shop.featured)}` },
    { href: '/shop/catalog', text: 'Browse the catalog' },
    { href: '/app/dashboard', text: 'Open the dashboard' },
    { href: `${site.aliasOrigin}/`, text: 'Our team blog' },
    { href: `${EXTERNAL_ORIGIN}/partners`, text: 'Our partners' },
    ...(site.options.bigPages > 0 ? [{ href: '/big', text: 'Large pages' }] : []),
  ];
  addPage(site, {
    path: '/about', section: 'about', template: 'about', title: 'About the Demo Site', sitemap: '/sitemaps/pages.xml',
    table: true, base64Image: true,
    links: { ...emptyLinks(), content: [
      { href: '/files/report.pdf', text: 'Annual report (PDF)' },
      { href: `${EXTERNAL_ORIGIN}/about-us`, text: 'Our parent company' },
    ] },
  });
}

function addBlogIndex(site: SiteBuild): void {
  const { blog } = site;
  for (let k = 1; k <= blog.indexPages; k++) {
    const onPage = blog.listed.slice((k - 1) * BLOG_PER_PAGE, k * BLOG_PER_PAGE);
    const content = onPage.map((n) => ({ href: postPath(n), text: blog.title(n) }));
    if (k === 1) content.push({ href: '/blog/missing-post', text: 'A post that was removed' });
    addPage(site, {
      path: blogIndexPath(k), section: 'blog', template: 'blog-index', n: k,
      title: k === 1 ? 'Blog' : `Blog, page ${k}`,
      sitemap: k === 1 ? '/sitemaps/pages.xml' : null,
      links: { ...emptyLinks(), content, pagination: paginationLinks(k, blog.indexPages, blogIndexPath) },
    });
  }
}

function addDocsIndex(site: SiteBuild): void {
  const { docs } = site;
  addPage(site, {
    path: '/docs', section: 'docs', template: 'docs-index', title: 'Documentation', language: 'en-US',
    sitemap: '/sitemaps/pages.xml', table: true,
    links: { ...emptyLinks(), content: [
      ...docs.children(0).map((j) => ({ href: docs.path[j], text: docs.title(j) })),
      { href: '/files/report.pdf', text: 'Download the annual report (PDF)' },
      { href: '/docs/broken-page', text: 'Troubleshooting (currently failing)' },
    ] },
  });
}

/** Shop index pages and the "load more" catalog. */
function addShopIndex(site: SiteBuild): void {
  const { shop } = site;
  for (let k = 1; k <= shop.indexPages; k++) {
    const onPage = shop.listed.slice((k - 1) * SHOP_PER_PAGE, k * SHOP_PER_PAGE);
    const content = onPage.map((n) => ({ href: itemPath(n), text: shop.title(n) }));
    if (k === 1) content.push({ href: '/shop/catalog', text: 'Full catalog' });
    addPage(site, {
      path: shopIndexPath(k), section: 'shop', template: 'shop-index', n: k, language: 'en-GB',
      title: k === 1 ? 'Shop' : `Shop, page ${k}`,
      sitemap: k === 1 ? '/sitemaps/pages.xml' : null,
      links: { ...emptyLinks(), content, pagination: paginationLinks(k, shop.indexPages, shopIndexPath) },
    });
  }
  addPage(site, {
    path: '/shop/catalog', section: 'shop', template: 'catalog', title: 'Catalog', language: 'en-GB',
    sitemap: '/sitemaps/pages.xml',
    links: { ...emptyLinks(), breadcrumbs: [{ href: '/shop', text: 'Shop' }], content:
      shop.listed.slice(0, CATALOG_PER_PAGE).map((n) => ({ href: itemPath(n), text: shop.title(n) })) },
  });
}

function addAppAndFiles(site: SiteBuild): void {
  addPage(site, { path: '/app/dashboard', section: 'app', template: 'app', kind: 'js', title: 'Dashboard (loading)', chrome: false, sitemap: '/sitemaps/pages.xml' });
  addPage(site, { path: '/files/report.pdf', section: 'files', template: 'pdf', kind: 'pdf', title: 'Demo Site Annual Report', chrome: false, sitemap: '/sitemaps/docs.xml' });
}

/** Blog posts (minus the orphans removed by the revision). */
function addBlogPosts(site: SiteBuild): void {
  const { blog, seed } = site;
  const removed = new Set(removedBlogOrphans(blog.count, site.options.revision));
  for (let n = 1; n <= blog.count; n++) {
    if (removed.has(n)) continue;
    const listedAt = blog.position.get(n) ?? -1;
    const content: LinkRef[] = [];
    if (listedAt > 0) content.push({ href: postPath(blog.listed[listedAt - 1]), text: `Newer: ${blog.title(blog.listed[listedAt - 1])}` });
    if (listedAt >= 0 && listedAt < blog.listed.length - 1) content.push({ href: postPath(blog.listed[listedAt + 1]), text: `Older: ${blog.title(blog.listed[listedAt + 1])}` });
    const breadcrumbs = [{ href: '/', text: 'Home' }, { href: '/blog', text: 'Blog' }];
    const onPage = listedAt >= 0 ? Math.floor(listedAt / BLOG_PER_PAGE) + 1 : 0;
    if (onPage > 1) breadcrumbs.push({ href: blogIndexPath(onPage), text: `Page ${onPage}` });
    addPage(site, {
      path: postPath(n), section: 'blog', template: 'post', n, title: blog.title(n),
      language: n % 5 === 0 ? 'de' : 'en',
      sitemap: isBlogOrphan(n) || n % 4 !== 2 ? '/sitemaps/blog.xml' : null,
      base64Image: n % 3 === 1,
      links: {
        ...emptyLinks(), breadcrumbs, content,
        related: pickRelated(seed, `post-${n}`, blog.listed, n, 2).map((r) => ({ href: postPath(r), text: blog.title(r) })),
        share: [
          { href: `${EXTERNAL_ORIGIN}/share?post=${n}&via=chirp`, text: 'Share on Chirp' },
          { href: `${EXTERNAL_ORIGIN}/share?post=${n}&via=mast`, text: 'Share on Mast' },
        ],
      },
    });
  }
}

/** Posts added by revisions 1..revision: like orphans, only in the blog sitemap. */
function addRevisionPosts(site: SiteBuild): void {
  const { blog, seed } = site;
  for (let r = 1; r <= site.options.revision; r++) {
    for (let k = 1; k <= ADDED_PER_REVISION; k++) {
      addPage(site, {
        path: addedPostPath(r, k), section: 'blog', template: 'post',
        title: `New post ${r}.${k}: ${phrase(createRng(seed, `new-post-title:${r}:${k}`), 3)}`,
        sitemap: '/sitemaps/blog.xml',
        links: {
          ...emptyLinks(),
          breadcrumbs: [{ href: '/', text: 'Home' }, { href: '/blog', text: 'Blog' }],
          related: pickRelated(seed, `new-${r}-${k}`, blog.listed, -1, 2).map((n) => ({ href: postPath(n), text: blog.title(n) })),
          share: [
            { href: `${EXTERNAL_ORIGIN}/share?post=new-${r}-${k}&via=chirp`, text: 'Share on Chirp' },
            { href: `${EXTERNAL_ORIGIN}/share?post=new-${r}-${k}&via=mast`, text: 'Share on Mast' },
          ],
        },
      });
    }
  }
}

function addDocPages(site: SiteBuild): void {
  const { docs } = site;
  for (let j = 1; j <= docs.count; j++) {
    const parent = Math.floor((j - 1) / 4);
    const breadcrumbs: LinkRef[] = [];
    for (let a = parent; ; a = Math.floor((a - 1) / 4)) {
      breadcrumbs.unshift({ href: docs.path[a], text: a === 0 ? 'Docs' : docs.label[a] });
      if (a === 0) break;
    }
    const content: LinkRef[] = docs.children(j).map((c) => ({ href: docs.path[c], text: docs.title(c) }));
    if (j > 1 && Math.floor((j - 2) / 4) === parent) content.push({ href: docs.path[j - 1], text: `Previous: ${docs.title(j - 1)}` });
    if (j < docs.count && Math.floor(j / 4) === parent) content.push({ href: docs.path[j + 1], text: `Next: ${docs.title(j + 1)}` });
    addPage(site, {
      path: docs.path[j], section: 'docs', template: 'doc', n: j, title: docs.title(j), language: 'en-US',
      sitemap: j % 5 === 0 ? null : '/sitemaps/docs.xml', table: true,
      links: { ...emptyLinks(), breadcrumbs, content },
    });
  }
}

function shopItemLinks(site: SiteBuild, n: number): PageLinks {
  const { shop } = site;
  const listedAt = shop.position.get(n) ?? -1;
  const content: LinkRef[] = [];
  if (listedAt > 0) content.push({ href: itemPath(shop.listed[listedAt - 1]), text: `Previous: ${shop.title(shop.listed[listedAt - 1])}` });
  if (listedAt >= 0 && listedAt < shop.listed.length - 1) content.push({ href: itemPath(shop.listed[listedAt + 1]), text: `Next: ${shop.title(shop.listed[listedAt + 1])}` });
  if (n === shop.featured) content.push({ href: `${itemPath(n)}?color=red`, text: 'Also in red' });
  const breadcrumbs = [{ href: '/', text: 'Home' }, { href: '/shop', text: 'Shop' }];
  const onPage = listedAt >= 0 ? Math.floor(listedAt / SHOP_PER_PAGE) + 1 : 0;
  if (onPage > 1) breadcrumbs.push({ href: shopIndexPath(onPage), text: `Page ${onPage}` });
  return {
    ...emptyLinks(), breadcrumbs, content,
    related: pickRelated(site.seed, `item-${n}`, shop.listed, n, 2).map((r) => ({ href: itemPath(r), text: shop.title(r) })),
  };
}

/** Shop items, plus the two query-string duplicates of the featured item. */
function addShopItems(site: SiteBuild): void {
  const { shop } = site;
  for (let n = 1; n <= shop.count; n++) {
    addPage(site, {
      path: itemPath(n), section: 'shop', template: 'item', n, title: shop.title(n), language: 'en-GB',
      sitemap: isShopOrphan(n) || n % 6 !== 5 ? '/sitemaps/shop.xml.gz' : null, table: true,
      links: shopItemLinks(site, n),
    });
  }
  for (const query of ['?ref=home', '?color=red']) {
    addPage(site, {
      path: `${itemPath(shop.featured)}${query}`, canonicalPath: itemPath(shop.featured), section: 'shop', template: 'item',
      n: shop.featured, title: shop.title(shop.featured), language: 'en-GB', table: true, links: shopItemLinks(site, shop.featured),
    });
  }
}

/** Errors, robots-disallowed pages, and unlinked special pages. */
function addSpecialPages(site: SiteBuild): void {
  addPage(site, { path: '/blog/missing-post', section: 'blog', template: 'error', kind: 'error', status: 404, title: '404 Not Found', chrome: false });
  addPage(site, { path: '/docs/broken-page', section: 'docs', template: 'error', kind: 'error', status: 500, title: '500 Internal Server Error', chrome: false });
  addPage(site, {
    path: '/private/', section: 'private', template: 'private', title: 'Private area',
    links: { ...emptyLinks(), content: [1, 2].map((i) => ({ href: `/private/report-${i}`, text: `Internal report ${i}` })) },
  });
  for (const i of [1, 2]) addPage(site, { path: `/private/report-${i}`, section: 'private', template: 'private', n: i, title: `Internal report ${i}` });
  addPage(site, { path: '/slow', section: 'misc', template: 'slow', kind: 'slow', title: 'A slow page' });
  const redirects: Array<[string, number, string]> = [
    ['/old-blog', 301, '/blog'],
    ['/go/docs', 302, '/docs'],
    ['/go/alias', 302, `${site.aliasOrigin}/`],
    ['/go/external', 302, `${EXTERNAL_ORIGIN}/landing`],
    ['/go/loop', 302, '/go/loop'],
  ];
  for (const [path, status, to] of redirects) {
    addPage(site, { path, section: 'misc', template: 'redirect', kind: 'redirect', status, redirectTo: to, title: `Redirect to ${to}`, chrome: false });
  }
}

function addBigPages(site: SiteBuild): void {
  const { bigPages, bigKb } = site.options;
  if (bigPages <= 0) return;
  addPage(site, {
    path: '/big', section: 'big', template: 'big-index', title: 'Large pages',
    links: { ...emptyLinks(), content: Array.from({ length: bigPages }, (_, i) => ({
      href: bigPath(i + 1, bigKb), text: `Large page ${i + 1}`,
    })) },
  });
  for (let i = 1; i <= bigPages; i++) {
    addPage(site, { path: bigPath(i, bigKb), canonicalPath: `/big/${i}`, section: 'big', template: 'big', n: i, title: `Large page ${i}` });
  }
}

/** The revised pages (and their query variants, which share the canonical page's text). */
function markRevisedPages(site: SiteBuild): void {
  const { revision } = site.options;
  if (revision <= 0) return;
  for (const spec of site.specs) if (REVISED_PATHS.includes(spec.canonicalPath)) spec.revisedIn = revision;
}

/** The alias host (blog.localhost): its own home, posts and about page. */
function addAliasHost(site: SiteBuild): void {
  const { seed, origin } = site;
  const aliasPostTitle = (n: number) => `Team note ${n}: ${phrase(createRng(seed, `alias-title:${n}`), 2)}`;
  addPage(site, {
    host: 'alias', path: '/', section: 'alias', template: 'alias-home', title: 'Team Blog', sitemap: '/sitemap.xml',
    links: { ...emptyLinks(), content: [
      ...Array.from({ length: ALIAS_POSTS - 1 }, (_, i) => ({ href: `/posts/${i + 1}`, text: aliasPostTitle(i + 1) })),
      { href: `${origin}/blog`, text: 'The main blog' },
    ] },
  });
  for (let n = 1; n <= ALIAS_POSTS; n++) {
    const content: LinkRef[] = [];
    if (n < ALIAS_POSTS - 1) content.push({ href: `/posts/${n + 1}`, text: aliasPostTitle(n + 1) });
    content.push({ href: `${origin}/blog`, text: 'The main blog' });
    addPage(site, {
      host: 'alias', path: `/posts/${n}`, section: 'alias', template: 'alias-post', n, title: aliasPostTitle(n),
      sitemap: '/sitemap.xml', links: { ...emptyLinks(), content },
    });
  }
  addPage(site, { host: 'alias', path: '/about', section: 'alias', template: 'alias-about', title: 'About the team blog', sitemap: '/sitemap.xml' });
}

/** Site header links per host. */
function navLinks(): Record<HostKind, LinkRef[]> {
  return {
    main: [
      { href: '/', text: 'Home' }, { href: '/blog', text: 'Blog' }, { href: '/docs', text: 'Docs' },
      { href: '/shop', text: 'Shop' }, { href: '/about', text: 'About' },
    ],
    alias: [{ href: '/', text: 'Team Blog' }, { href: '/about', text: 'About' }],
  };
}

/** Site footer links per host. */
function footerLinks(origin: string): Record<HostKind, LinkRef[]> {
  return {
    main: [
      { href: '/about', text: 'About us' }, { href: '/private/', text: 'Staff area' },
      { href: `${EXTERNAL_ORIGIN}/terms`, text: 'Terms' }, { href: `${EXTERNAL_ORIGIN}/privacy`, text: 'Privacy' },
    ],
    alias: [{ href: `${origin}/`, text: 'Main site' }],
  };
}

export function buildLayout(input: SiteOptions): SiteLayout {
  const options = siteOptions(input);
  const { pages, seed, origin } = options;
  const site: SiteBuild = {
    options,
    seed,
    origin,
    aliasOrigin: aliasOriginFor(origin),
    specs: [],
    byKey: new Map<string, PageSpec>(),
    blog: planBlog(seed, Math.ceil(pages / 3)),
    shop: planShop(seed, Math.floor(pages / 3)),
    docs: planDocs(seed, Math.ceil((pages - 1) / 3)),
  };
  // The order of pages is part of the layout (`specs` is "a stable order"): keep it.
  addHomeAndAbout(site);
  addBlogIndex(site);
  addDocsIndex(site);
  addShopIndex(site);
  addAppAndFiles(site);
  addBlogPosts(site);
  addRevisionPosts(site);
  addDocPages(site);
  addShopItems(site);
  addSpecialPages(site);
  addBigPages(site);
  markRevisedPages(site);
  addAliasHost(site);

  const navs = navLinks();
  const footers = footerLinks(origin);
  return {
    options,
    origin,
    aliasOrigin: site.aliasOrigin,
    specs: site.specs,
    get: (host, path) => site.byKey.get(`${host} ${path}`),
    nav: (host) => navs[host],
    footer: (host) => footers[host],
    shopListed: site.shop.listed,
    counts: { blog: site.blog.count, docs: site.docs.count, shop: site.shop.count },
  };
}

/** Every link of a page as written, in page order: nav, main groups, footer. */
export function pageHrefs(layout: SiteLayout, spec: PageSpec): string[] {
  const l = spec.links;
  const groups = [l.breadcrumbs, l.content, l.share, l.pagination, l.related];
  const out: string[] = [];
  if (spec.chrome) for (const link of layout.nav(spec.host)) out.push(link.href);
  for (const group of groups) for (const link of group) out.push(link.href);
  if (spec.chrome) for (const link of layout.footer(spec.host)) out.push(link.href);
  return out;
}
