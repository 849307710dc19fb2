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

export function buildLayout(input: SiteOptions): SiteLayout {
  const pages = input.pages;
  if (!Number.isInteger(pages) || pages < 3 || pages > 100_000) {
    throw new RangeError(`demo site: pages must be an integer from 3 to 100000, got ${pages}`);
  }
  const options: Required<SiteOptions> = {
    pages,
    seed: input.seed,
    origin: new URL(input.origin).origin,
    bigPages: input.bigPages ?? 0,
    bigKb: input.bigKb ?? 400,
    revision: checkRevision(input.revision === undefined ? 0 : input.revision),
  };
  const { seed, origin } = options;
  const aliasOrigin = aliasOriginFor(origin);
  const specs: PageSpec[] = [];
  const byKey = new Map<string, PageSpec>();

  const meta = (host: HostKind, path: string) => {
    const rng = createRng(seed, `${host}${path}:meta`);
    return { rng, description: sentence(rng), keywords: keywords(rng, 3), lastmod: isoDate(seed, path) };
  };
  const add = (spec: PageSpec): PageSpec => {
    specs.push(spec);
    byKey.set(`${spec.host} ${spec.path}`, spec);
    return spec;
  };
  const page = (
    init: Partial<PageSpec> & Pick<PageSpec, 'path' | 'section' | 'template' | 'title'>,
  ): PageSpec => {
    const host = init.host ?? 'main';
    // Query variants share their canonical page's metadata and text.
    const m = meta(host, init.canonicalPath ?? init.path);
    return add({
      host,
      canonicalPath: init.path,
      kind: 'html',
      status: 200,
      description: m.description,
      language: 'en',
      keywords: m.keywords,
      lastmod: m.lastmod,
      sitemap: null,
      chrome: true,
      ...init,
      links: { ...emptyLinks(), ...init.links },
    });
  };

  const blogCount = Math.ceil(pages / 3);
  const docsCount = Math.ceil((pages - 1) / 3);
  const shopCount = Math.floor(pages / 3);

  // ----- blog -----
  const blogListed: number[] = [];
  for (let n = 1; n <= blogCount; n++) if (!isBlogOrphan(n)) blogListed.push(n);
  const blogPages = Math.max(1, Math.ceil(blogListed.length / BLOG_PER_PAGE));
  const postTitle = memo((n) => `Post ${n}: ${phrase(createRng(seed, `post-title:${n}`), 3)}`);
  const blogPos = new Map<number, number>(blogListed.map((n, i) => [n, i]));

  // ----- shop -----
  const shopListed: number[] = [];
  for (let n = 1; n <= shopCount; n++) if (!isShopOrphan(n)) shopListed.push(n);
  const shopPages = Math.max(1, Math.ceil(shopListed.length / SHOP_PER_PAGE));
  const itemTitle = memo((n) => `Item ${n}: ${phrase(createRng(seed, `item-title:${n}`), 2)}`);
  const shopPos = new Map<number, number>(shopListed.map((n, i) => [n, i]));
  const featured = Math.min(3, shopCount);

  // ----- docs: a 4-ary tree in heap order under /docs (node j's parent is floor((j-1)/4), 0 = /docs) -----
  const docPath: string[] = ['/docs'];
  const docLabel: string[] = ['Docs'];
  const docLevel: number[] = [0];
  for (let j = 1; j <= docsCount; j++) {
    const parent = Math.floor((j - 1) / 4);
    docLevel[j] = docLevel[parent] + 1;
    const { segment, label } = docSegment(docLevel[j], (j - 1) % 4);
    docPath[j] = `${docPath[parent]}/${segment}`;
    docLabel[j] = parent === 0 ? label : `${docLabel[parent]} / ${label}`;
  }
  const docTitle = memo((j) => `${docLabel[j]}: ${phrase(createRng(seed, `doc-title:${j}`), 2)}`);
  const docChildren = (j: number): number[] => {
    const out: number[] = [];
    for (let c = 4 * j + 1; c <= Math.min(4 * j + 4, docsCount); c++) out.push(c);
    return out;
  };

  // ----- main host: fixed pages -----
  const home = page({ path: '/', section: 'home', template: 'home', title: 'Demo Site: Home', sitemap: '/sitemaps/pages.xml' });
  home.links.content = [
    ...blogListed.slice(0, 3).map((n) => ({ href: postPath(n), text: postTitle(n) })),
    ...docChildren(0).map((j) => ({ href: docPath[j], text: docTitle(j) })),
    { href: `${itemPath(featured)}?ref=home`, text: `Featured: ${itemTitle(featured)}` },
    { href: '/shop/catalog', text: 'Browse the catalog' },
    { href: '/app/dashboard', text: 'Open the dashboard' },
    { href: `${aliasOrigin}/`, text: 'Our team blog' },
    { href: `${EXTERNAL_ORIGIN}/partners`, text: 'Our partners' },
    ...(options.bigPages > 0 ? [{ href: '/big', text: 'Large pages' }] : []),
  ];

  page({
    path: '/about', section: 'about', template: 'about', title: 'About the Demo Site', sitemap: '/sitemaps/pages.xml',
    table: true, base64Image: true,
    links: { ...emptyLinks(), content: [
      { href: '/files/report.pdf', text: 'Annual report (PDF)' },
      { href: `${EXTERNAL_ORIGIN}/about-us`, text: 'Our parent company' },
    ] },
  });

  // Blog index pages.
  for (let k = 1; k <= blogPages; k++) {
    const onPage = blogListed.slice((k - 1) * BLOG_PER_PAGE, k * BLOG_PER_PAGE);
    const content = onPage.map((n) => ({ href: postPath(n), text: postTitle(n) }));
    if (k === 1) content.push({ href: '/blog/missing-post', text: 'A post that was removed' });
    page({
      path: blogIndexPath(k), section: 'blog', template: 'blog-index', n: k,
      title: k === 1 ? 'Blog' : `Blog, page ${k}`,
      sitemap: k === 1 ? '/sitemaps/pages.xml' : null,
      links: { ...emptyLinks(), content, pagination: paginationLinks(k, blogPages, blogIndexPath) },
    });
  }

  // Docs index.
  page({
    path: '/docs', section: 'docs', template: 'docs-index', title: 'Documentation', language: 'en-US',
    sitemap: '/sitemaps/pages.xml', table: true,
    links: { ...emptyLinks(), content: [
      ...docChildren(0).map((j) => ({ href: docPath[j], text: docTitle(j) })),
      { href: '/files/report.pdf', text: 'Download the annual report (PDF)' },
      { href: '/docs/broken-page', text: 'Troubleshooting (currently failing)' },
    ] },
  });

  // Shop index pages and the "load more" catalog.
  for (let k = 1; k <= shopPages; k++) {
    const onPage = shopListed.slice((k - 1) * SHOP_PER_PAGE, k * SHOP_PER_PAGE);
    const content = onPage.map((n) => ({ href: itemPath(n), text: itemTitle(n) }));
    if (k === 1) content.push({ href: '/shop/catalog', text: 'Full catalog' });
    page({
      path: shopIndexPath(k), section: 'shop', template: 'shop-index', n: k, language: 'en-GB',
      title: k === 1 ? 'Shop' : `Shop, page ${k}`,
      sitemap: k === 1 ? '/sitemaps/pages.xml' : null,
      links: { ...emptyLinks(), content, pagination: paginationLinks(k, shopPages, shopIndexPath) },
    });
  }
  page({
    path: '/shop/catalog', section: 'shop', template: 'catalog', title: 'Catalog', language: 'en-GB',
    sitemap: '/sitemaps/pages.xml',
    links: { ...emptyLinks(), breadcrumbs: [{ href: '/shop', text: 'Shop' }], content:
      shopListed.slice(0, CATALOG_PER_PAGE).map((n) => ({ href: itemPath(n), text: itemTitle(n) })) },
  });

  page({ path: '/app/dashboard', section: 'app', template: 'app', kind: 'js', title: 'Dashboard (loading)', chrome: false, sitemap: '/sitemaps/pages.xml' });
  page({ path: '/files/report.pdf', section: 'files', template: 'pdf', kind: 'pdf', title: 'Demo Site Annual Report', chrome: false, sitemap: '/sitemaps/docs.xml' });

  // Blog posts (minus the orphans removed by the revision).
  const removed = new Set(removedBlogOrphans(blogCount, options.revision));
  for (let n = 1; n <= blogCount; n++) {
    if (removed.has(n)) continue;
    const listedAt = blogPos.get(n) ?? -1;
    const content: LinkRef[] = [];
    if (listedAt > 0) content.push({ href: postPath(blogListed[listedAt - 1]), text: `Newer: ${postTitle(blogListed[listedAt - 1])}` });
    if (listedAt >= 0 && listedAt < blogListed.length - 1) content.push({ href: postPath(blogListed[listedAt + 1]), text: `Older: ${postTitle(blogListed[listedAt + 1])}` });
    const breadcrumbs = [{ href: '/', text: 'Home' }, { href: '/blog', text: 'Blog' }];
    const onPage = listedAt >= 0 ? Math.floor(listedAt / BLOG_PER_PAGE) + 1 : 0;
    if (onPage > 1) breadcrumbs.push({ href: blogIndexPath(onPage), text: `Page ${onPage}` });
    page({
      path: postPath(n), section: 'blog', template: 'post', n, title: postTitle(n),
      language: n % 5 === 0 ? 'de' : 'en',
      sitemap: isBlogOrphan(n) || n % 4 !== 2 ? '/sitemaps/blog.xml' : null,
      base64Image: n % 3 === 1,
      links: {
        ...emptyLinks(), breadcrumbs, content,
        related: pickRelated(seed, `post-${n}`, blogListed, n, 2).map((r) => ({ href: postPath(r), text: postTitle(r) })),
        share: [
          { href: `${EXTERNAL_ORIGIN}/share?post=${n}&via=chirp`, text: 'Share on Chirp' },
          { href: `${EXTERNAL_ORIGIN}/share?post=${n}&via=mast`, text: 'Share on Mast' },
        ],
      },
    });
  }

  // Posts added by revisions 1..revision: like orphans, only in the blog sitemap.
  for (let r = 1; r <= options.revision; r++) {
    for (let k = 1; k <= ADDED_PER_REVISION; k++) {
      const path = addedPostPath(r, k);
      page({
        path, section: 'blog', template: 'post',
        title: `New post ${r}.${k}: ${phrase(createRng(seed, `new-post-title:${r}:${k}`), 3)}`,
        sitemap: '/sitemaps/blog.xml',
        links: {
          ...emptyLinks(),
          breadcrumbs: [{ href: '/', text: 'Home' }, { href: '/blog', text: 'Blog' }],
          related: pickRelated(seed, `new-${r}-${k}`, blogListed, -1, 2).map((n) => ({ href: postPath(n), text: postTitle(n) })),
          share: [
            { href: `${EXTERNAL_ORIGIN}/share?post=new-${r}-${k}&via=chirp`, text: 'Share on Chirp' },
            { href: `${EXTERNAL_ORIGIN}/share?post=new-${r}-${k}&via=mast`, text: 'Share on Mast' },
          ],
        },
      });
    }
  }

  // Docs pages.
  for (let j = 1; j <= docsCount; j++) {
    const parent = Math.floor((j - 1) / 4);
    const breadcrumbs: LinkRef[] = [];
    for (let a = parent; ; a = Math.floor((a - 1) / 4)) {
      breadcrumbs.unshift({ href: docPath[a], text: a === 0 ? 'Docs' : docLabel[a] });
      if (a === 0) break;
    }
    const content: LinkRef[] = docChildren(j).map((c) => ({ href: docPath[c], text: docTitle(c) }));
    if (j > 1 && Math.floor((j - 2) / 4) === parent) content.push({ href: docPath[j - 1], text: `Previous: ${docTitle(j - 1)}` });
    if (j < docsCount && Math.floor(j / 4) === parent) content.push({ href: docPath[j + 1], text: `Next: ${docTitle(j + 1)}` });
    page({
      path: docPath[j], section: 'docs', template: 'doc', n: j, title: docTitle(j), language: 'en-US',
      sitemap: j % 5 === 0 ? null : '/sitemaps/docs.xml', table: true,
      links: { ...emptyLinks(), breadcrumbs, content },
    });
  }

  // Shop items, plus the two query-string duplicates of the featured item.
  const itemLinks = (n: number): PageLinks => {
    const listedAt = shopPos.get(n) ?? -1;
    const content: LinkRef[] = [];
    if (listedAt > 0) content.push({ href: itemPath(shopListed[listedAt - 1]), text: `Previous: ${itemTitle(shopListed[listedAt - 1])}` });
    if (listedAt >= 0 && listedAt < shopListed.length - 1) content.push({ href: itemPath(shopListed[listedAt + 1]), text: `Next: ${itemTitle(shopListed[listedAt + 1])}` });
    if (n === featured) content.push({ href: `${itemPath(n)}?color=red`, text: 'Also in red' });
    const breadcrumbs = [{ href: '/', text: 'Home' }, { href: '/shop', text: 'Shop' }];
    const onPage = listedAt >= 0 ? Math.floor(listedAt / SHOP_PER_PAGE) + 1 : 0;
    if (onPage > 1) breadcrumbs.push({ href: shopIndexPath(onPage), text: `Page ${onPage}` });
    return {
      ...emptyLinks(), breadcrumbs, content,
      related: pickRelated(seed, `item-${n}`, shopListed, n, 2).map((r) => ({ href: itemPath(r), text: itemTitle(r) })),
    };
  };
  for (let n = 1; n <= shopCount; n++) {
    page({
      path: itemPath(n), section: 'shop', template: 'item', n, title: itemTitle(n), language: 'en-GB',
      sitemap: isShopOrphan(n) || n % 6 !== 5 ? '/sitemaps/shop.xml.gz' : null, table: true,
      links: itemLinks(n),
    });
  }
  for (const query of ['?ref=home', '?color=red']) {
    page({
      path: `${itemPath(featured)}${query}`, canonicalPath: itemPath(featured), section: 'shop', template: 'item',
      n: featured, title: itemTitle(featured), language: 'en-GB', table: true, links: itemLinks(featured),
    });
  }

  // Errors, robots-disallowed pages, and unlinked special pages.
  page({ path: '/blog/missing-post', section: 'blog', template: 'error', kind: 'error', status: 404, title: '404 Not Found', chrome: false });
  page({ path: '/docs/broken-page', section: 'docs', template: 'error', kind: 'error', status: 500, title: '500 Internal Server Error', chrome: false });
  page({
    path: '/private/', section: 'private', template: 'private', title: 'Private area',
    links: { ...emptyLinks(), content: [1, 2].map((i) => ({ href: `/private/report-${i}`, text: `Internal report ${i}` })) },
  });
  for (const i of [1, 2]) page({ path: `/private/report-${i}`, section: 'private', template: 'private', n: i, title: `Internal report ${i}` });
  page({ path: '/slow', section: 'misc', template: 'slow', kind: 'slow', title: 'A slow page' });
  const redirects: Array<[string, number, string]> = [
    ['/old-blog', 301, '/blog'],
    ['/go/docs', 302, '/docs'],
    ['/go/alias', 302, `${aliasOrigin}/`],
    ['/go/external', 302, `${EXTERNAL_ORIGIN}/landing`],
    ['/go/loop', 302, '/go/loop'],
  ];
  for (const [path, status, to] of redirects) {
    page({ path, section: 'misc', template: 'redirect', kind: 'redirect', status, redirectTo: to, title: `Redirect to ${to}`, chrome: false });
  }

  if (options.bigPages > 0) {
    page({
      path: '/big', section: 'big', template: 'big-index', title: 'Large pages',
      links: { ...emptyLinks(), content: Array.from({ length: options.bigPages }, (_, i) => ({
        href: bigPath(i + 1, options.bigKb), text: `Large page ${i + 1}`,
      })) },
    });
    for (let i = 1; i <= options.bigPages; i++) {
      page({ path: bigPath(i, options.bigKb), canonicalPath: `/big/${i}`, section: 'big', template: 'big', n: i, title: `Large page ${i}` });
    }
  }

  // The revised pages (and their query variants, which share the canonical page's text).
  if (options.revision > 0) {
    for (const spec of specs) if (REVISED_PATHS.includes(spec.canonicalPath)) spec.revisedIn = options.revision;
  }

  // ----- alias host (blog.localhost) -----
  const aliasPostTitle = (n: number) => `Team note ${n}: ${phrase(createRng(seed, `alias-title:${n}`), 2)}`;
  page({
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
    page({
      host: 'alias', path: `/posts/${n}`, section: 'alias', template: 'alias-post', n, title: aliasPostTitle(n),
      sitemap: '/sitemap.xml', links: { ...emptyLinks(), content },
    });
  }
  page({ host: 'alias', path: '/about', section: 'alias', template: 'alias-about', title: 'About the team blog', sitemap: '/sitemap.xml' });

  const navs: Record<HostKind, LinkRef[]> = {
    main: [
      { href: '/', text: 'Home' }, { href: '/blog', text: 'Blog' }, { href: '/docs', text: 'Docs' },
      { href: '/shop', text: 'Shop' }, { href: '/about', text: 'About' },
    ],
    alias: [{ href: '/', text: 'Team Blog' }, { href: '/about', text: 'About' }],
  };
  const footers: Record<HostKind, LinkRef[]> = {
    main: [
      { href: '/about', text: 'About us' }, { href: '/private/', text: 'Staff area' },
      { href: `${EXTERNAL_ORIGIN}/terms`, text: 'Terms' }, { href: `${EXTERNAL_ORIGIN}/privacy`, text: 'Privacy' },
    ],
    alias: [{ href: `${origin}/`, text: 'Main site' }],
  };

  return {
    options,
    origin,
    aliasOrigin,
    specs,
    get: (host, path) => byKey.get(`${host} ${path}`),
    nav: (host) => navs[host],
    footer: (host) => footers[host],
    shopListed,
    counts: { blog: blogCount, docs: docsCount, shop: shopCount },
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
