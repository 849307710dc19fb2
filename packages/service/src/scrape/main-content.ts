// onlyMainContent, readability-style: a page that marks its main content (<main>, [role=main],
// a single <article>) is trusted and only stripped of boilerplate (navigation, sidebars, share
// and cookie blocks, page-level header/footer). Otherwise the densest text block is chosen and
// link-dense blocks are dropped too, since unmarked link lists are mostly navigation.
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element, ParentNode } from 'domhandler';
import { eachElement, removeNode } from './dom.js';

// Boilerplate by tag, role, class or id (matched in one walk rather than as one long selector).
const BOILERPLATE_TAGS = new Set(['nav', 'aside', 'dialog']);
const BOILERPLATE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);
const BOILERPLATE_CLASSES = new Set([
  'breadcrumb', 'breadcrumbs', 'pagination', 'pager', 'share', 'share-links', 'sharing', 'social', 'social-links',
  'sidebar', 'related', 'cookie', 'cookie-banner', 'newsletter', 'advert', 'advertisement', 'ads', 'ad-slot', 'popup',
  'modal', 'skip-link', 'site-header', 'site-footer', 'navbar',
]);
const BOILERPLATE_IDS = new Set(['breadcrumbs', 'sidebar', 'cookie-banner', 'header', 'footer']);

/** Navigation, sidebars, share and cookie blocks and the like, by tag, role, class or id. */
export function isBoilerplate(el: { name: string; attribs: Record<string, string> }): boolean {
  const { role, id, class: classes } = el.attribs;
  if (BOILERPLATE_TAGS.has(el.name) || (role !== undefined && BOILERPLATE_ROLES.has(role))) return true;
  if (id !== undefined && BOILERPLATE_IDS.has(id)) return true;
  if (classes) for (const c of classes.split(/\s+/)) if (BOILERPLATE_CLASSES.has(c)) return true;
  return false;
}

function insideArticle(el: Element): boolean {
  for (let p: ParentNode | null = el; p; p = p.parent) if (p.type === 'tag' && (p as Element).name === 'article') return true;
  return false;
}

/** True when any text below `node` is not whitespace; stops at the first such text (a page's whole text is not built to be tested). */
function hasText(node: AnyNode): boolean {
  if (node.type === 'text') return /\S/.test(node.data);
  if (!('children' in node)) return false;
  for (const child of node.children) if (hasText(child)) return true;
  return false;
}

/** The first <main> or [role=main], and every <article>, below `root`, in one walk. */
function landmarks(root: ParentNode): { main: Element | null; articles: Element[] } {
  let main: Element | null = null;
  const articles: Element[] = [];
  eachElement(root, (el) => {
    if (main === null && (el.name === 'main' || el.attribs.role === 'main')) main = el;
    if (el.name === 'article') articles.push(el);
  });
  return { main, articles };
}

function textLength($: CheerioAPI, el: Cheerio<AnyNode> | AnyNode): number {
  return $(el).text().replace(/\s+/g, ' ').trim().length;
}

/** Share of the text that sits inside links (0..1), and the number of links. */
function linkDensity($: CheerioAPI, el: Cheerio<Element>): { density: number; links: number } {
  const total = textLength($, el);
  const anchors = el.find('a');
  if (total === 0) return { density: anchors.length > 0 ? 1 : 0, links: anchors.length };
  let inLinks = 0;
  anchors.each((_, a) => {
    inLinks += textLength($, a);
  });
  return { density: Math.min(1, inLinks / total), links: anchors.length };
}

function stripBoilerplate($: CheerioAPI, root: Cheerio<Element>, dropLinkDense: boolean): void {
  // An article's own <header>/<footer> (title, byline) is content; the page's is not.
  for (const top of root.toArray()) {
    eachElement(top, (el) => {
      if (!isBoilerplate(el) && !((el.name === 'header' || el.name === 'footer') && !insideArticle(el))) return true;
      removeNode(el);
      return false;
    });
  }
  if (!dropLinkDense) return;
  root.find('ul, ol, div, section, table').each((_, el) => {
    const block = $(el);
    const { density, links } = linkDensity($, block);
    if (links >= 3 && density > 0.5) block.remove();
  });
}

/** The element with the most paragraph text, discounted by its link density. */
function densestBlock($: CheerioAPI, body: Cheerio<Element>): Cheerio<Element> | null {
  const scores = new Map<Element, number>();
  body.find('p, pre, td').each((_, el) => {
    const length = textLength($, el);
    if (length < 25) return;
    const score = 1 + $(el).text().split(',').length + Math.min(3, Math.floor(length / 100));
    const parent = el.parent?.type === 'tag' ? (el.parent as Element) : null;
    if (!parent) return;
    scores.set(parent, (scores.get(parent) ?? 0) + score);
    const grand = parent.parent?.type === 'tag' ? (parent.parent as Element) : null;
    if (grand) scores.set(grand, (scores.get(grand) ?? 0) + score / 2);
  });
  let best: Element | null = null;
  let bestScore = 0;
  for (const [el, score] of scores) {
    const adjusted = score * (1 - linkDensity($, $(el)).density);
    if (adjusted > bestScore) {
      best = el;
      bestScore = adjusted;
    }
  }
  return best ? $(best) : null;
}

/** Picks (and cleans, in place) the main-content element below `body`. */
export function selectMainContent($: CheerioAPI, body: Cheerio<Element>): Cheerio<Element> {
  // body is one node: <body>, or the document when a page has none.
  const { main, articles } = body.length === 1 ? landmarks(body[0]) : { main: null, articles: [] };
  if (main !== null && hasText(main)) {
    const landmark = $(main);
    stripBoilerplate($, landmark, false);
    return landmark;
  }
  if (articles.length === 1 && hasText(articles[0])) {
    const article = $(articles[0]);
    stripBoilerplate($, article, false);
    return article;
  }
  stripBoilerplate($, body, true);
  return densestBlock($, body) ?? body;
}
