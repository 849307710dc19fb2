// The main-content fidelity corpus (issue 46): HTML pages in the shapes where a main-content
// rule can go wrong, generated from a seed (same seed, same pages, byte for byte), plus the
// existing markdown fixtures of the service and the demo site's HTML pages. The comparison
// (fidelity.ts) serves these pages over loopback HTTP and scrapes each on the local service and
// on the open-source server. manifest.json records every page's path, shape and hash and the
// corpus hash (sha256 over all pages), which keys the cached answers of the open-source server.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLayout } from '../../../packages/service/src/demo-site/layout.js';
import { renderPage } from '../../../packages/service/src/demo-site/render.js';

export const CORPUS_SEED = 46;
/** Pages per generated shape (the issue asks for at least 15). */
export const PER_SHAPE = 15;
/** The demo site the corpus takes its pages from: this many content pages, its default seed. */
const DEMO_PAGES = 12;
const DEMO_SEED = 1;
/** The demo site's pages are rendered as if served from here (only absolute canonical/og URLs carry it). */
const DEMO_ORIGIN = 'http://demo.invalid';

export const GENERATED_SHAPES = [
  'header', 'top-menu', 'main', 'article', 'articles', 'no-landmarks', 'link-dense', 'table', 'code',
  'form', 'iframe', 'malformed', 'force-include', 'widget', 'link-bar',
] as const;
export type Shape = (typeof GENERATED_SHAPES)[number] | 'fixture' | 'demo';

export interface CorpusPage {
  /** Path on the corpus server, e.g. /header/03.html. */
  path: string;
  shape: Shape;
  html: string;
}

export interface CorpusManifest {
  seed: number;
  perShape: number;
  /** sha256 of every page (path, NUL, html, NUL, in path order): keys the open-source server's cached answers. */
  corpusHash: string;
  /** The same over the generated shapes only (no fixture or demo page): what this file alone decides. */
  generatedHash: string;
  pages: Array<{ path: string; shape: Shape; sha256: string }>;
}

// ---------------------------------------------------------------------------------------------
// Seeded text.

/** mulberry32: a small, fast, seedable generator (deterministic across platforms). */
function rngFrom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32LE(0);
}

const WORDS = (
  'river harbor lantern copper meadow signal orchard granite willow beacon canyon ember falcon glacier ' +
  'hollow island juniper kettle lagoon marble nectar oasis pebble quarry raven saddle timber valley ' +
  'walnut yonder zephyr amber basalt cedar delta estuary fjord grove heron inlet jasper kelp ledge ' +
  'mesa nimbus obsidian prairie quartz reef sierra tundra upland vista wharf acre bramble cairn dune ' +
  'eddy fern gale heath iris jetty knoll loam moor nook ridge spruce thicket umber vale wren yarrow ' +
  'analysis budget contract design engine feature gateway history invoice journal kernel ledger module ' +
  'network output protocol query record schema token update version window archive buffer cluster'
).split(' ');

class Text {
  private readonly next: () => number;
  constructor(seed: string) {
    this.next = rngFrom(seedOf(seed));
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  word(): string {
    return this.pick(WORDS);
  }
  words(n: number): string {
    return Array.from({ length: n }, () => this.word()).join(' ');
  }
  title(n = 3): string {
    const w = this.words(n);
    return w.charAt(0).toUpperCase() + w.slice(1);
  }
  sentence(): string {
    return `${this.title(this.int(6, 14))}.`;
  }
  paragraph(min = 3, max = 6): string {
    return Array.from({ length: this.int(min, max) }, () => this.sentence()).join(' ');
  }
  slug(): string {
    return `${this.word()}-${this.word()}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Pieces of pages.

function doc(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n${head}</head>\n<body>\n${body}\n</body>\n</html>\n`;
}

const paragraphs = (t: Text, n: number): string => Array.from({ length: n }, () => `<p>${t.paragraph()}</p>`).join('\n');

function linkList(t: Text, n: number, prefix = '/'): string {
  return Array.from({ length: n }, () => `<li><a href="${prefix}${t.slug()}">${t.title(2)}</a></li>`).join('');
}

/** Site chrome of the usual kind: a <nav> menu, sometimes a header, a footer with links. */
function siteNav(t: Text): string {
  return `<nav><ul>${linkList(t, 5)}</ul></nav>`;
}
function siteFooter(t: Text): string {
  return `<footer><p>© 2026 ${t.title(2)}</p><ul>${linkList(t, 3, '/legal/')}</ul></footer>`;
}
function cookieBanner(t: Text): string {
  return `<div class="cookie"><p>We use cookies for ${t.words(4)}.</p><button>Accept</button></div>`;
}

// ---------------------------------------------------------------------------------------------
// The shapes. Each builder gets its own seeded text and the page's index (0..PER_SHAPE-1), which
// picks a variant so that a shape's pages differ in structure, not only in words.

type Builder = (t: Text, i: number) => string;

const BUILDERS: Record<(typeof GENERATED_SHAPES)[number], Builder> = {
  // The page's title and introduction sit in <header> (a hero), the rest below it.
  header: (t, i) => {
    const title = t.title(4);
    const hero = i % 3 === 0
      ? `<header><h1>${title}</h1><p>${t.paragraph(2, 3)}</p></header>`
      : i % 3 === 1
        ? `<header class="hero"><h1>${title}</h1><p class="lead">${t.paragraph(1, 2)}</p>${siteNav(t)}</header>`
        : `<article><header><h1>${title}</h1><p class="byline">By ${t.title(2)}</p></header>${paragraphs(t, 3)}</article>`;
    const rest = i % 3 === 2 ? '' : `<h2>${t.title(3)}</h2>\n${paragraphs(t, t.int(2, 4))}`;
    return doc(title, `${i % 2 === 0 ? siteNav(t) : ''}\n${hero}\n${rest}\n${siteFooter(t)}`);
  },

  // Content in a block classed .top or .menu (a restaurant's menu, a top story).
  'top-menu': (t, i) => {
    const title = t.title(3);
    const block = i % 2 === 0
      ? `<div class="top"><h2>${t.title(3)}</h2><p>${t.paragraph()}</p></div>`
      : `<div class="menu"><h2>Menu</h2><ul>${Array.from({ length: t.int(4, 7) }, () => `<li>${t.title(3)}: ${t.words(6)}, ${t.int(5, 30)} euros</li>`).join('')}</ul></div>`;
    const order = i % 3 === 0 ? `${block}\n${paragraphs(t, 2)}` : `${paragraphs(t, 2)}\n${block}`;
    return doc(title, `${siteNav(t)}\n<h1>${title}</h1>\n${order}\n${siteFooter(t)}`);
  },

  // The content marked with <main>; chrome outside it, sometimes boilerplate inside.
  main: (t, i) => {
    const title = t.title(4);
    const inside = [
      i % 3 === 0 ? `<nav class="breadcrumbs"><a href="/">Home</a> / <a href="/${t.slug()}">${t.title(1)}</a></nav>` : '',
      `<h1>${title}</h1>`,
      paragraphs(t, t.int(2, 4)),
      i % 4 === 1 ? `<h2>${t.title(2)}</h2><ul>${Array.from({ length: 4 }, () => `<li>${t.sentence()}</li>`).join('')}</ul>` : '',
      i % 5 === 2 ? `<aside><p>${t.sentence()}</p></aside>` : '',
      i % 3 === 2 ? `<div class="share"><a href="https://social.invalid/share">Share</a></div>` : '',
    ].filter(Boolean).join('\n');
    const main = i % 4 === 3 ? `<div role="main">${inside}</div>` : `<main>${inside}</main>`;
    return doc(title, `<header>${siteNav(t)}</header>\n${main}\n${i % 2 ? cookieBanner(t) : ''}\n${siteFooter(t)}`);
  },

  // One <article> among chrome and a sidebar.
  article: (t, i) => {
    const title = t.title(4);
    const article = `<article><h1>${title}</h1>\n${paragraphs(t, t.int(3, 5))}${i % 2 ? `<h2>${t.title(2)}</h2><p>${t.paragraph()}</p>` : ''}</article>`;
    const sidebar = `<div class="sidebar"><h3>${t.title(2)}</h3><ul>${linkList(t, 4)}</ul></div>`;
    const body = i % 3 === 0 ? `${article}\n${sidebar}` : i % 3 === 1 ? `<div class="layout">${sidebar}${article}</div>` : `<div id="content">${article}<p>${t.sentence()}</p></div>`;
    return doc(title, `${siteNav(t)}\n${body}\n${siteFooter(t)}`);
  },

  // Several <article>s: a listing of summaries, or a page of stories.
  articles: (t, i) => {
    const title = t.title(3);
    const n = 2 + (i % 4);
    const items = Array.from({ length: n }, () => `<article><h2><a href="/post/${t.slug()}">${t.title(4)}</a></h2><p>${t.paragraph(2, 4)}</p></article>`).join('\n');
    const wrap = i % 2 === 0 ? `<h1>${title}</h1>\n${items}` : `<section><h1>${title}</h1>${items}</section>`;
    return doc(title, `${siteNav(t)}\n${wrap}\n${siteFooter(t)}`);
  },

  // No landmarks or boilerplate classes at all: headings, paragraphs, lists in divs.
  'no-landmarks': (t, i) => {
    const title = t.title(3);
    const parts = [`<h1>${title}</h1>`, paragraphs(t, t.int(2, 4))];
    if (i % 2) parts.push(`<h2>${t.title(2)}</h2><ol>${Array.from({ length: 3 }, () => `<li>${t.sentence()}</li>`).join('')}</ol>`);
    if (i % 3 === 0) parts.push(`<blockquote><p>${t.sentence()}</p></blockquote>`);
    if (i % 4 === 1) parts.push(`<p><strong>${t.words(3)}</strong> and <em>${t.words(2)}</em> with <a href="/${t.slug()}">${t.words(2)}</a>.</p>`);
    const body = i % 3 === 2 ? parts.join('\n') : `<div class="wrapper"><div class="content-area">${parts.join('\n')}</div></div>`;
    return doc(title, body);
  },

  // A directory: the list of links is the content.
  'link-dense': (t, i) => {
    const title = `${t.title(2)} directory`;
    const groups = Array.from({ length: 1 + (i % 3) }, () => `<h2>${t.title(2)}</h2>\n<ul>${linkList(t, t.int(6, 12), '/dir/')}</ul>`).join('\n');
    const intro = i % 2 === 0 ? `<p>${t.sentence()}</p>` : '';
    const body = i % 4 === 3 ? `<div class="links"><h1>${title}</h1>${intro}${groups}</div>` : `<h1>${title}</h1>\n${intro}\n${groups}`;
    return doc(title, `${i % 2 ? siteNav(t) : ''}\n${body}`);
  },

  // Data tables (header row, sometimes a caption, sometimes a row of links).
  table: (t, i) => {
    const title = t.title(3);
    const cols = 2 + (i % 3);
    const rows = t.int(3, 6);
    const head = `<tr>${Array.from({ length: cols }, () => `<th>${t.title(1)}</th>`).join('')}</tr>`;
    const body = Array.from({ length: rows }, () => `<tr>${Array.from({ length: cols }, (_, c) => `<td>${c === 0 && i % 4 === 0 ? `<a href="/row/${t.slug()}">${t.word()}</a>` : t.words(t.int(1, 3))}</td>`).join('')}</tr>`).join('');
    const table = `<table>${i % 3 === 0 ? `<caption>${t.title(2)}</caption>` : ''}${i % 2 ? `<thead>${head}</thead><tbody>${body}</tbody>` : `${head}${body}`}</table>`;
    return doc(title, `${siteNav(t)}\n<h1>${title}</h1>\n<p>${t.paragraph(1, 2)}</p>\n${table}\n<p>${t.sentence()}</p>\n${siteFooter(t)}`);
  },

  // Code blocks, inline code, a language class.
  code: (t, i) => {
    const title = t.title(3);
    const lines = Array.from({ length: t.int(3, 8) }, () => `const ${t.word()} = ${t.word()}(${t.int(1, 99)}); // ${t.words(3)}`).join('\n');
    const block = i % 2 ? `<pre><code class="language-js">${lines}</code></pre>` : `<pre>${lines}</pre>`;
    return doc(title, `${siteNav(t)}\n<main><h1>${title}</h1>\n<p>Call <code>${t.word()}()</code> ${t.paragraph(1, 2)}</p>\n${block}\n<p>${t.paragraph(1, 3)}</p></main>\n${siteFooter(t)}`);
  },

  // Forms: labels, inputs, selects, textareas, buttons.
  form: (t, i) => {
    const title = t.title(3);
    const fields = Array.from({ length: t.int(2, 4) }, (_, k) => {
      const name = t.word();
      return k % 3 === 2
        ? `<label for="${name}">${t.title(2)}</label><select id="${name}"><option>${t.word()}</option><option>${t.word()}</option></select>`
        : `<label>${t.title(2)} <input name="${name}" placeholder="${t.word()}"></label>`;
    }).join('<br>');
    const form = `<form action="/submit/${t.slug()}" method="post"><fieldset><legend>${t.title(2)}</legend>${fields}${i % 2 ? `<textarea name="note">${t.words(4)}</textarea>` : ''}</fieldset><button type="submit">Send</button></form>`;
    const body = i % 3 === 0 ? `<main><h1>${title}</h1><p>${t.paragraph(1, 2)}</p>${form}</main>` : `<h1>${title}</h1><p>${t.paragraph(1, 2)}</p>${form}<p>${t.sentence()}</p>`;
    return doc(title, `${siteNav(t)}\n${body}\n${siteFooter(t)}`);
  },

  // Iframes (a video, a map, a srcdoc) among text.
  iframe: (t, i) => {
    const title = t.title(3);
    const frame = i % 3 === 0
      ? `<iframe src="/embed/${t.slug()}.html" title="${t.title(2)}" width="560" height="315"></iframe>`
      : i % 3 === 1
        ? `<iframe srcdoc="<p>${t.words(5)}</p>" title="${t.title(2)}"></iframe>`
        : `<figure><iframe src="https://maps.invalid/${t.slug()}"></iframe><figcaption>${t.sentence()}</figcaption></figure>`;
    return doc(title, `${siteNav(t)}\n<h1>${title}</h1>\n<p>${t.paragraph()}</p>\n${frame}\n<p>${t.paragraph(1, 3)}</p>\n${siteFooter(t)}`);
  },

  // Malformed HTML: unclosed and misnested tags, stray end tags, unquoted attributes.
  malformed: (t, i) => {
    const title = t.title(3);
    const variants = [
      `<h1>${title}</h1><p>${t.paragraph()}<p>${t.paragraph()}<div>${t.sentence()}`,
      `<h1>${title}<p>${t.paragraph()}</p></div></span><p><b>${t.words(3)}<i>${t.words(2)}</b></i> ${t.sentence()}</p>`,
      `<div><h1>${title}</h1><ul><li>${t.sentence()}<li>${t.sentence()}<li>${t.sentence()}</ul><p>${t.paragraph()}</div></div>`,
      `<h1>${title}</h1><table><tr><td>${t.words(2)}<td>${t.words(2)}<tr><td>${t.words(2)}<td>${t.words(2)}</table><p>${t.paragraph()}`,
      `<h1>${title}</h1><p>${t.paragraph()}</p><a href=/${t.slug()}>${t.words(2)}</a> <p class=note>${t.sentence()}</p><!-- ${t.words(3)}`,
    ];
    const body = variants[i % variants.length];
    // Some pages lack <html>, <head> and <body> altogether.
    return i % 2 ? `<title>${title}</title>\n${siteNav(t)}${body}` : doc(title, `${siteNav(t)}\n${body}`);
  },

  // #main inside a block the reference removes (.sidebar, aside, .widget): force-included there.
  'force-include': (t, i) => {
    const title = t.title(3);
    const main = `<div id="main"><h1>${title}</h1>${paragraphs(t, t.int(2, 3))}</div>`;
    const outer = i % 3 === 0 ? `<div class="sidebar">${main}</div>` : i % 3 === 1 ? `<div class="layout"><aside>${main}</aside></div>` : `<div class="widget"><div class="inner">${main}</div></div>`;
    return doc(title, `${siteNav(t)}\n${outer}\n${i % 2 ? `<div class="sidebar"><ul>${linkList(t, 3)}</ul></div>` : ''}\n${siteFooter(t)}`);
  },

  // A .widget block next to the content (newsletter sign-up, weather, a tag cloud).
  widget: (t, i) => {
    const title = t.title(3);
    const widget = i % 3 === 0
      ? `<div class="widget"><h3>${t.title(2)}</h3><p>${t.sentence()}</p></div>`
      : i % 3 === 1
        ? `<section class="widget tags"><ul>${linkList(t, 4, '/tag/')}</ul></section>`
        : `<div id="widget"><p>${t.paragraph(1, 2)}</p></div>`;
    const body = i % 2 ? `<main><h1>${title}</h1>${paragraphs(t, 2)}${widget}</main>` : `<h1>${title}</h1>\n${paragraphs(t, 2)}\n${widget}`;
    return doc(title, `${siteNav(t)}\n${body}\n${siteFooter(t)}`);
  },

  // A bar of links (no <nav>, no class the reference knows) above an unmarked heading.
  'link-bar': (t, i) => {
    const title = t.title(3);
    const links = Array.from({ length: t.int(3, 6) }, () => `<a href="/${t.slug()}">${t.title(1)}</a>`);
    const bar = i % 2 ? `<div class="links">${links.join(' | ')}</div>` : `<p>${links.join(' · ')}</p>`;
    return doc(title, `${bar}\n<h1>${title}</h1>\n${paragraphs(t, t.int(2, 4))}`);
  },
};

// ---------------------------------------------------------------------------------------------
// The corpus.

const FIXTURES_DIR = fileURLToPath(new URL('../../../packages/service/test/fixtures/markdown/', import.meta.url));

/** The generated shapes only (what this file decides alone). */
export function generatedPages(seed = CORPUS_SEED, perShape = PER_SHAPE): CorpusPage[] {
  const pages: CorpusPage[] = [];
  for (const shape of GENERATED_SHAPES) {
    for (let i = 0; i < perShape; i++) {
      const t = new Text(`${seed}:${shape}:${i}`);
      pages.push({ path: `/${shape}/${String(i + 1).padStart(2, '0')}.html`, shape, html: BUILDERS[shape](t, i) });
    }
  }
  return pages;
}

/** The service's markdown fixtures (packages/service/test/fixtures/markdown/*.html). */
export function fixturePages(): CorpusPage[] {
  return readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.html')).sort()
    .map((f) => ({ path: `/fixture/${f}`, shape: 'fixture' as const, html: readFileSync(join(FIXTURES_DIR, f), 'utf8') }));
}

/** The demo site's HTML pages (main host and alias host), rendered from its layout as its server would. */
export function demoPages(): CorpusPage[] {
  const layout = buildLayout({ pages: DEMO_PAGES, seed: DEMO_SEED, origin: DEMO_ORIGIN });
  return layout.specs
    .filter((s) => s.kind === 'html' && s.status === 200 && s.template !== 'big-index' && s.template !== 'big')
    .map((s) => {
      const name = `${s.host}${s.path}`.replace(/[^a-zA-Z0-9]+/g, '-').replace(/-+$/, '');
      return { path: `/demo/${name}.html`, shape: 'demo' as const, html: renderPage(layout, s, { origin: DEMO_ORIGIN, mobile: false }) };
    });
}

export function corpusPages(): CorpusPage[] {
  return [...generatedPages(), ...fixturePages(), ...demoPages()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function hashOf(pages: CorpusPage[]): string {
  const h = createHash('sha256');
  for (const p of [...pages].sort((a, b) => (a.path < b.path ? -1 : 1))) h.update(p.path).update('\0').update(p.html).update('\0');
  return h.digest('hex');
}

export function buildManifest(pages: CorpusPage[] = corpusPages()): CorpusManifest {
  return {
    seed: CORPUS_SEED,
    perShape: PER_SHAPE,
    corpusHash: hashOf(pages),
    generatedHash: hashOf(pages.filter((p) => (GENERATED_SHAPES as readonly string[]).includes(p.shape))),
    pages: pages.map((p) => ({ path: p.path, shape: p.shape, sha256: createHash('sha256').update(p.html).digest('hex').slice(0, 16) })),
  };
}

export const MANIFEST_PATH = fileURLToPath(new URL('./manifest.json', import.meta.url));

export function readManifest(): CorpusManifest {
  return JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as CorpusManifest;
}
