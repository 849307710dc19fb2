// The `html` format: the parsed page without scripts, styles and comments, narrowed by
// excludeTags / includeTags / onlyMainContent, with relative URLs made absolute and data: images
// replaced when asked. Mutates the document, so it runs after metadata and links are read.
// Fixed rules are plain tree walks; only the user's CSS selectors go through cheerio.
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element, ParentNode } from 'domhandler';
import { HttpError } from '../core/http-error.js';
import { eachElement, isElement, removeNode } from './dom.js';
import type { PageUrls } from './links.js';
import { selectMainContent } from './main-content.js';
import { BASE64_IMAGE_PLACEHOLDER } from './text.js';

export interface ContentOptions {
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  removeBase64Images: boolean;
}

export const NON_CONTENT: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'canvas', 'link', 'meta', 'base']);
/** Attributes holding a URL, per element. */
const URL_ATTRIBUTES: Record<string, string[]> = {
  a: ['href'], area: ['href'], img: ['src'], source: ['src'], video: ['src', 'poster'], audio: ['src'], track: ['src'], form: ['action'],
};

/** Drops non-content elements and comments from the whole document, in one walk. */
function removeNonContent(root: ParentNode): void {
  const walk = (parent: ParentNode) => {
    const children = parent.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child.type === 'comment' || (isElement(child) && NON_CONTENT.has(child.name))) removeNode(child);
      else if ('children' in child) walk(child);
    }
  };
  walk(root);
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

/** Elements matched by includeTags, in document order, without ones nested in another match. */
function included($: CheerioAPI, body: Cheerio<Element>, selectors: string[]): Element[] {
  let matched = $([] as Element[]);
  for (const selector of selectors) matched = matched.add(select(body, selector, 'includeTags'));
  const set = new Set(matched.toArray());
  return matched.toArray().filter((el) => {
    for (let p = el.parent; p; p = p.parent) if (set.has(p as Element)) return false;
    return true;
  });
}

/** The cleaned content for the `html` format (and the markdown conversion); serialize with html(). */
export function contentRoot($: CheerioAPI, body: Element | null, urls: PageUrls, options: ContentOptions): Cheerio<AnyNode> {
  removeNonContent($.root()[0]);
  const top: Cheerio<Element> = body ? $(body) : ($.root() as unknown as Cheerio<Element>);
  for (const selector of options.excludeTags) select(top, selector, 'excludeTags').remove();

  let root: Cheerio<AnyNode>;
  if (options.includeTags.length > 0) {
    // Explicitly included elements are kept as they are: onlyMainContent does not apply to them.
    root = $('<div></div>').append(included($, top, options.includeTags));
  } else {
    root = options.onlyMainContent ? selectMainContent($, top) : top;
  }
  for (const node of root.toArray()) if ('children' in node) finish(node, urls, options.removeBase64Images);
  return root;
}

export function html(root: Cheerio<AnyNode>): string {
  return (root.html() ?? '').trim();
}

// Form controls and drawings carry no readable content; the engines also disagreed on where an
// SVG's text goes.
export const NOT_READ: ReadonlySet<string> = new Set(['button', 'input', 'select', 'textarea', 'svg']);
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
 * The content as the markdown engine takes it (the html format is serialized before): left-over
 * form controls and drawings go; elements mdream would keep as HTML, or read badly, are renamed.
 */
export function prepareForMarkdown(root: Cheerio<AnyNode>): void {
  for (const node of root.toArray()) {
    if (!('children' in node)) continue;
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
