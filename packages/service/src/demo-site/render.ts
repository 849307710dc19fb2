// HTML for the demo site's pages. Every link comes from the page spec (layout.ts), so the HTML and
// the manifest agree; text is generated from the seed, so a page is identical on every request.
import { createRng, paragraph, sentence, type Rng } from './random.js';
import type { LinkRef, PageSpec, SiteLayout } from './layout.js';

export interface RenderContext {
  /** Origin the request came in on (Host header), for absolute canonical/og URLs. */
  origin: string;
  mobile: boolean;
  /** Value of the request header x-demo-echo, if any. */
  echo?: string;
  /** Size of a `big` page, KiB (from its ?kb=). */
  bigKb?: number;
}

/** Text the JavaScript page shows once its script has run (in its static HTML only inside the script). */
export const DEMO_JS_TEXT = 'Rendered by JavaScript: three widgets loaded.';
/** A 1x1 PNG, used as the data-URI image on some pages. */
export const BASE64_PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const AUTHORS = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson', 'Edsger Dijkstra', 'Barbara Liskov'];

export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const a = (link: LinkRef): string => `<a href="${esc(link.href)}">${esc(link.text)}</a>`;
const ul = (links: LinkRef[], cls: string): string =>
  links.length ? `<ul class="${cls}">${links.map((l) => `<li>${a(l)}</li>`).join('')}</ul>` : '';
const paragraphs = (rng: Rng, n: number): string => {
  let out = '';
  for (let i = 0; i < n; i++) out += `<p>${esc(paragraph(rng))}</p>\n`;
  return out;
};

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table>\n<thead><tr>${th}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>\n`;
}

/** The options table of docs node j (values tests can predict). */
export function docsTableRows(j: number): string[][] {
  return [['timeout', 'integer', String(1000 * j)], ['retries', 'integer', String(j % 5)], ['format', 'string', 'markdown']];
}

/** The spec table of shop item n. */
export function itemTableRows(n: number): string[][] {
  return [['SKU', `DEMO-${String(n).padStart(5, '0')}`], ['Weight', `${(n % 9) + 1} kg`], ['Colour', n % 2 ? 'red' : 'blue']];
}

export function itemPrice(n: number): string {
  return `€${(9.99 + (n % 50) * 2).toFixed(2)}`;
}

function head(spec: PageSpec, ctx: RenderContext, rng: Rng): string {
  const canonical = ctx.origin + spec.canonicalPath;
  const author = rng.pick(AUTHORS);
  const metas: Array<[string, string, string]> = [
    ['name', 'description', spec.description],
    ['name', 'keywords', spec.keywords.join(', ')],
    ['name', 'author', author],
    ['name', 'robots', 'index, follow'],
    ['name', 'webdata:device', ctx.mobile ? 'mobile' : 'desktop'],
    ...(ctx.echo !== undefined ? [['name', 'webdata:echo', ctx.echo] as [string, string, string]] : []),
    ['property', 'og:title', spec.title],
    ['property', 'og:description', spec.description],
    ['property', 'og:type', spec.template === 'post' ? 'article' : 'website'],
    ['property', 'og:url', canonical],
    ['property', 'og:image', `${ctx.origin}/images/og-${spec.section}.svg`],
    ['property', 'og:site_name', spec.host === 'main' ? 'Demo Site' : 'Team Blog'],
    ['property', 'og:locale', 'en_US'],
    ['property', 'og:locale:alternate', 'de_DE'],
    ['property', 'og:locale:alternate', 'fr_FR'],
    ['name', 'twitter:card', 'summary'],
  ];
  return `<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(spec.title)}</title>
${metas.map(([attr, key, value]) => `<meta ${attr}="${key}" content="${esc(value)}">`).join('\n')}
<link rel="canonical" href="${esc(canonical)}">
<link rel="icon" href="/images/favicon.svg">
<style>body{font-family:sans-serif;margin:0}.layout{display:flex}main{flex:1;padding:1rem}</style>
<script>window.dataLayer = window.dataLayer || []; window.dataLayer.push({ event: 'view' });</script>
</head>`;
}

function body(layout: SiteLayout, spec: PageSpec, ctx: RenderContext, rng: Rng): string {
  const l = spec.links;
  const describe = (link: LinkRef) => layout.get(spec.host, link.href)?.description ?? '';
  const listing = (links: LinkRef[]) => links.length
    ? `<ul class="listing">${links.map((link) => `<li>${a(link)}<p>${esc(describe(link))}</p></li>`).join('\n')}</ul>\n`
    : '';
  const image = `<img src="/images/${spec.section}-${spec.n ?? 0}.svg" alt="Illustration for ${esc(spec.title)}" width="320" height="200">\n`;
  const inline = spec.base64Image ? `<figure><img src="${BASE64_PIXEL}" alt="Inline pixel"><figcaption>An inline image</figcaption></figure>\n` : '';
  const n = spec.n ?? 0;
  let main = '';
  switch (spec.template) {
    case 'home':
      main = `${paragraphs(rng, 2)}<h2>Start here</h2>\n${ul(l.content, 'featured')}\n`;
      break;
    case 'about':
      main = `${paragraphs(rng, 2)}<h2>The team</h2>\n${table(['Name', 'Role', 'Since'], [
        ['Ada Lovelace', 'Editor', '2019'], ['Alan Turing', 'Engineer', '2020'], ['Grace Hopper', 'Maintainer', '2021'],
      ])}${inline}<p>Read ${l.content.map(a).join(' and ')}.</p>\n`;
      break;
    case 'blog-index':
    case 'shop-index':
    case 'big-index':
      main = `<p>${esc(sentence(rng))}</p>\n${listing(l.content)}`;
      break;
    case 'docs-index':
      main = `${paragraphs(rng, 1)}<h2>Guides</h2>\n${listing(l.content)}<h2>Versions</h2>\n${table(['Version', 'Released', 'Status'], [
        ['2.0', '2024-03-01', 'current'], ['1.4', '2023-06-15', 'maintained'], ['1.0', '2022-01-10', 'retired'],
      ])}`;
      break;
    case 'post':
      main = `${paragraphs(rng, 3)}<h2>${esc(sentence(rng).slice(0, -1))}</h2>\n${paragraphs(rng, 2)}${image}${inline}`
        + (l.content.length ? `<p class="post-nav">${l.content.map(a).join(' | ')}</p>\n` : '');
      break;
    case 'doc':
      main = `${paragraphs(rng, 2)}<h2>Options</h2>\n${table(['Option', 'Type', 'Default'], docsTableRows(n))}`
        + `<pre><code>webdata scrape --timeout ${1000 * n}</code></pre>\n${paragraphs(rng, 1)}${ul(l.content, 'doc-links')}`;
      break;
    case 'item':
      main = `<p class="price">Price: ${esc(itemPrice(n))}</p>\n${paragraphs(rng, 2)}${image}<h2>Specifications</h2>\n`
        + `${table(['Property', 'Value'], itemTableRows(n))}${ul(l.content, 'item-links')}`;
      break;
    case 'catalog': {
      const more = layout.shopListed.length > l.content.length;
      main = `<p>Showing ${l.content.length} of ${layout.shopListed.length} items.</p>\n${ul(l.content, 'catalog-items').replace('<ul class="catalog-items">', '<ul id="catalog-items" class="catalog-items">')}`
        + (more ? `<button id="load-more" type="button">Load more</button>\n<script>${LOAD_MORE_SCRIPT}</script>\n` : '');
      break;
    }
    case 'slow':
      main = `<p>This page answered slowly on purpose.</p>\n${paragraphs(rng, 1)}`;
      break;
    case 'private':
    case 'alias-home':
    case 'alias-post':
    case 'alias-about':
      main = `${paragraphs(rng, 2)}${ul(l.content, 'links')}`;
      break;
    case 'big':
      main = bigText(rng, ctx.bigKb ?? 400);
      break;
    default:
      main = paragraphs(rng, 1);
  }
  if (spec.revisedIn) main += revisionNote(layout.options.seed, spec.canonicalPath, spec.revisedIn);
  const crumbs = l.breadcrumbs.length
    ? `<nav class="breadcrumbs" aria-label="Breadcrumb">${l.breadcrumbs.map(a).join(' › ')} › ${esc(spec.title)}</nav>\n`
    : '';
  const share = l.share.length ? `<div class="share-links">Share: ${l.share.map(a).join(' ')}</div>\n` : '';
  const pagination = l.pagination.length ? `<nav class="pagination">${l.pagination.map(a).join(' ')}</nav>\n` : '';
  const related = l.related.length ? `<aside class="related"><h2>Related</h2>${ul(l.related, 'related-list')}</aside>\n` : '';
  const header = spec.chrome
    ? `<header class="site-header"><span class="logo">${spec.host === 'main' ? 'Demo Site' : 'Team Blog'}</span>`
      + `<nav class="site-nav">${ul(layout.nav(spec.host), 'menu')}</nav></header>\n`
    : '';
  const footer = spec.chrome
    ? `<footer class="site-footer"><p>© 2024 Demo Site. All rights reserved.</p>${ul(layout.footer(spec.host), 'footer-links')}</footer>\n`
    : '';
  const byline = `<p class="byline">Updated <time datetime="${spec.lastmod}">${spec.lastmod}</time></p>`;
  return `<body>
<!-- site header -->
${header}<div class="layout">
<main id="content">
${crumbs}<article>
<header class="article-header"><h1>${esc(spec.title)}</h1>${byline}</header>
<p class="lead">${esc(spec.description)}</p>
${main}${share}</article>
${pagination}${related}</main>
</div>
${footer}<script>console.log('analytics: page view');</script>
</body>`;
}

const LOAD_MORE_SCRIPT = `(function () {
  var next = 2;
  var button = document.getElementById('load-more');
  var list = document.getElementById('catalog-items');
  button.addEventListener('click', function () {
    button.disabled = true;
    fetch('/api/items?page=' + next).then(function (r) { return r.json(); }).then(function (data) {
      data.items.forEach(function (item) {
        var li = document.createElement('li');
        var link = document.createElement('a');
        link.href = item.url;
        link.textContent = item.name;
        li.appendChild(link);
        list.appendChild(li);
      });
      if (data.nextPage) { next = data.nextPage; button.disabled = false; } else { button.remove(); }
    });
  });
})();`;

/**
 * The paragraph a revised page (layout.ts REVISED_PATHS) adds to its main content: it names the
 * revision, and its own random source leaves the rest of the page's text as at revision 0.
 */
export function revisionNote(seed: number, canonicalPath: string, revision: number): string {
  const rng = createRng(seed, `${canonicalPath}:revision:${revision}`);
  return `<p class="revision-note">Revised in revision ${revision}: ${esc(paragraph(rng))}</p>\n`;
}

/** About `kb` KiB of paragraphs. */
export function bigText(rng: Rng, kb: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < kb * 1024) {
    const p = `<p>${paragraph(rng)}</p>\n`;
    parts.push(p);
    size += p.length;
  }
  return parts.join('');
}

export function renderPage(layout: SiteLayout, spec: PageSpec, ctx: RenderContext): string {
  const rng = createRng(layout.options.seed, `${spec.host}${spec.canonicalPath}:body`);
  return `<!DOCTYPE html>\n<html lang="${spec.language}">\n${head(spec, ctx, rng)}\n${body(layout, spec, ctx, rng)}\n</html>\n`;
}

export function renderJsPage(spec: PageSpec): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(spec.title)}</title>
<meta name="description" content="${esc(spec.description)}">
<meta name="webdata:render" content="javascript">
</head>
<body>
<div id="root"></div>
<noscript>This dashboard needs JavaScript.</noscript>
<script>
(function () {
  var root = document.getElementById('root');
  root.innerHTML = '<main><h1>Dashboard</h1><p id="rendered">${DEMO_JS_TEXT}</p>'
    + '<ul><li><a href="/blog">Blog</a></li><li><a href="/docs">Docs</a></li></ul></main>';
  document.title = 'Dashboard';
})();
</script>
</body>
</html>
`;
}

export function renderErrorPage(status: number, title: string, path: string): string {
  const message = status === 404 ? `The page ${path} does not exist.` : 'Something went wrong on our side. Please try again later.';
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body><h1>${esc(title.replace(/^\d+ /, ''))}</h1><p>${esc(message)}</p></body>
</html>
`;
}
