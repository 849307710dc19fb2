// The `html` format: the parsed page without scripts, styles and comments, narrowed by
// excludeTags / includeTags / onlyMainContent, with relative URLs made absolute and data: images
// replaced when asked. Mutates the document, so it runs after metadata and links are read.
// Fixed rules are plain tree walks; only the user's CSS selectors go through cheerio.
import type { Cheerio, CheerioAPI } from 'cheerio';
import { Element, Text, type AnyNode, type ParentNode } from 'domhandler';
import { HttpError } from '../core/http-error.js';
import { appendChild, eachElement, insertAfter, isElement, removeNode, replaceNode } from './dom.js';
import type { PageUrls } from './links.js';
import { removeNonMain } from './main-content.js';
import { BASE64_IMAGE_PLACEHOLDER } from './text.js';

export interface ContentOptions {
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  removeBase64Images: boolean;
}

/**
 * Dropped with everything inside. The reference drops script, style, noscript, meta and head; the
 * others here hold nothing a reader sees (template content is inert; link and base are head
 * matter). An <object>'s and a <canvas>'s fallback content stays, as in the reference, which reads
 * the page as Chromium built it.
 */
export const NON_CONTENT: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'embed', 'link', 'meta', 'base']);
/** Attributes holding a URL, per element. */
const URL_ATTRIBUTES: Record<string, string[]> = {
  a: ['href'], area: ['href'], img: ['src'], source: ['src'], video: ['src', 'poster'], audio: ['src'], track: ['src'], form: ['action'],
};

/**
 * What an <iframe> reads as: the reference's converter writes a frame with a source as a link to
 * it, `[iframe](src)`, and nothing of its fallback content. Its id and class stay, so the
 * removal lists still see it. Null for a frame without a source (srcdoc), which reads as nothing.
 */
export function frameLink(attribs: Record<string, string>): Record<string, string> | null {
  const src = attribs.src?.trim();
  if (!src) return null;
  const link: Record<string, string> = {};
  if (attribs.id !== undefined) link.id = attribs.id;
  if (attribs.class !== undefined) link.class = attribs.class;
  link.href = src;
  return link;
}
export const FRAME_LINK_TEXT = 'iframe';

function linkElement(attribs: Record<string, string>): Element {
  const a = new Element('a', attribs, []);
  appendChild(a, new Text(FRAME_LINK_TEXT));
  return a;
}

/** Drops non-content elements and comments below `root`, iteratively (pages choose their depth). */
function removeNonContent(root: ParentNode): void {
  const stack: ParentNode[] = [root];
  while (stack.length > 0) {
    const children = stack.pop()!.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child.type === 'comment') removeNode(child);
      else if (isElement(child) && NON_CONTENT.has(child.name)) {
        const link = child.name === 'iframe' ? frameLink(child.attribs) : null;
        if (link) replaceNode(child, linkElement(link));
        else removeNode(child);
      } else if ('children' in child) stack.push(child);
    }
  }
}

function resolve(value: string, urls: PageUrls): string {
  const trimmed = value.trim();
  if (/^(data|javascript|mailto|tel):/i.test(trimmed)) return value;
  return urls.href(trimmed) ?? value;
}

function resolveSrcset(srcset: string, urls: PageUrls): string {
  return srcset
    .split(',')
    .map((part) => {
      const [url, ...descriptor] = part.trim().split(/\s+/);
      return url ? [resolve(url, urls), ...descriptor].join(' ') : '';
    })
    .filter(Boolean)
    .join(', ');
}

function hasRow(table: Element): boolean {
  let found = false;
  eachElement(table, (el) => {
    if (el.name === 'tr') found = true;
    return !found;
  });
  return found;
}

/**
 * An element's attributes as the content keeps them: URLs absolute, and data: images the
 * placeholder when asked. Returns `attribs` itself when nothing applies, else a changed copy.
 */
export function finishedAttributes(name: string, attribs: Record<string, string>, urls: PageUrls, removeBase64Images: boolean): Record<string, string> {
  const urlAttributes = URL_ATTRIBUTES[name];
  const image = name === 'img' || name === 'source';
  if (!urlAttributes && !image) return attribs;
  const out = { ...attribs };
  for (const attr of urlAttributes ?? []) if (out[attr] !== undefined) out[attr] = resolve(out[attr], urls);
  if (image && out.srcset !== undefined) {
    if (removeBase64Images && name === 'img' && /data:/i.test(out.srcset)) delete out.srcset;
    else out.srcset = resolveSrcset(out.srcset, urls);
  }
  if (removeBase64Images && name === 'img' && /^\s*data:/i.test(out.src ?? '')) out.src = BASE64_IMAGE_PLACEHOLDER;
  return out;
}

/**
 * Final pass over the content: row-less tables go (they carry nothing, and make empty markdown
 * tables), and attributes are finished (finishedAttributes).
 */
function finish(root: ParentNode, urls: PageUrls, removeBase64Images: boolean): void {
  eachElement(root, (el) => {
    if (el.name === 'table' && !hasRow(el)) {
      removeNode(el);
      return false;
    }
    el.attribs = finishedAttributes(el.name, el.attribs, urls, removeBase64Images);
  });
}

function select(body: Cheerio<Element>, selector: string, option: string): Cheerio<Element> {
  try {
    return body.find(selector);
  } catch (err) {
    throw new HttpError(400, `${option}: invalid CSS selector "${selector}" (${err instanceof Error ? err.message : String(err)})`, {
      code: 'BAD_REQUEST',
    });
  }
}

/**
 * The elements includeTags keeps, as the reference collects them: selector by selector, each
 * selector's matches in document order, so an element matched by two selectors (or inside
 * another match) is kept twice.
 */
function included($: CheerioAPI, selectors: string[]): Cheerio<AnyNode> {
  const root = $('<div></div>');
  const all = $.root() as unknown as Cheerio<Element>;
  for (const selector of selectors) for (const el of select(all, selector, 'includeTags').toArray()) root.append($(el).clone());
  return root;
}

/**
 * The cleaned content for the `html` format (and the markdown conversion); serialize with html().
 * The reference's order: includeTags first (over the whole page), then the non-content elements,
 * excludeTags, and onlyMainContent's removal list on what is left.
 */
export function contentRoot($: CheerioAPI, body: Element | null, urls: PageUrls, options: ContentOptions): Cheerio<AnyNode> {
  const root: Cheerio<AnyNode> = options.includeTags.length > 0
    ? included($, options.includeTags)
    : body ? $(body) : $.root();
  for (const node of root.toArray()) if ('children' in node) removeNonContent(node);
  const top = root as Cheerio<Element>;
  for (const selector of options.excludeTags) select(top, selector, 'excludeTags').remove();
  for (const node of root.toArray()) {
    if (!('children' in node)) continue;
    if (options.onlyMainContent) removeNonMain(node);
    finish(node, urls, options.removeBase64Images);
  }
  return root;
}

export function html(root: Cheerio<AnyNode>): string {
  return (root.html() ?? '').trim();
}

// Inputs carry no readable content (the reference drops a textarea's text too); the engines
// disagreed on where an SVG's text goes. A button's label and a select's options are read, as in
// the reference.
export const NOT_READ: ReadonlySet<string> = new Set(['input', 'textarea', 'svg']);
/**
 * Elements mdream keeps as raw HTML, renamed to the ones whose text they read as. Done here, on
 * the tree, because mdream's native engine only aliases unknown tags.
 */
export const READ_AS: Readonly<Record<string, string>> = {
  dl: 'div', dt: 'p', dd: 'p', details: 'div', summary: 'p', sub: 'span', sup: 'span', mark: 'span',
  // Read as paragraphs; mdream runs a legend into the next label, and its engines space fieldsets differently.
  fieldset: 'div', legend: 'p',
};

/**
 * A table's caption is read after the table, where the reference's converter writes it (mdream
 * writes it before). Moved out as a paragraph right after its table.
 */
function moveCaptions(root: ParentNode): void {
  const tables: Element[] = [];
  eachElement(root, (el) => {
    if (el.name === 'table') tables.push(el);
  });
  for (const table of tables) {
    const caption = table.children.find((c): c is Element => isElement(c) && c.name === 'caption');
    if (!caption || !table.parent) continue;
    removeNode(caption);
    caption.name = 'p';
    insertAfter(table, caption);
  }
}

/**
 * The content as the markdown engine takes it (the html format is serialized before): left-over
 * form controls and drawings go; elements mdream would keep as HTML, or read badly, are renamed.
 */
export function prepareForMarkdown(root: Cheerio<AnyNode>): void {
  for (const node of root.toArray()) {
    if (!('children' in node)) continue;
    moveCaptions(node);
    eachElement(node, (el) => {
      if (NOT_READ.has(el.name)) {
        removeNode(el);
        return false;
      }
      const readAs = READ_AS[el.name];
      if (readAs) el.name = readAs;
      return true;
    });
  }
}
