// The `html` format: the parsed page without scripts, styles and comments, narrowed by
// excludeTags / includeTags / onlyMainContent, with relative URLs made absolute and data: images
// replaced when asked. Mutates the document, so it runs after metadata and links are read.
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { HttpError } from '../core/http-error.js';
import { selectMainContent } from './main-content.js';
import { BASE64_IMAGE_PLACEHOLDER } from './text.js';

export interface ContentOptions {
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  removeBase64Images: boolean;
}

const NON_CONTENT = 'script, style, noscript, template, iframe, object, embed, canvas, link, meta, base';
const URL_ATTRIBUTES: Array<[string, string]> = [
  ['a[href]', 'href'], ['area[href]', 'href'], ['img[src]', 'src'], ['source[src]', 'src'], ['video[src]', 'src'],
  ['audio[src]', 'src'], ['track[src]', 'src'], ['video[poster]', 'poster'], ['form[action]', 'action'],
];

function removeComments(node: AnyNode): void {
  if (!('children' in node)) return;
  const children = node.children;
  for (let i = children.length - 1; i >= 0; i--) {
    const child = children[i];
    if (child.type === 'comment') {
      children.splice(i, 1);
      if (child.prev) child.prev.next = child.next;
      if (child.next) child.next.prev = child.prev;
    } else {
      removeComments(child);
    }
  }
}

function resolve(value: string, base: string): string {
  const trimmed = value.trim();
  if (/^(data|javascript|mailto|tel):/i.test(trimmed)) return value;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return value;
  }
}

function absolutize(root: Cheerio<AnyNode>, base: string): void {
  for (const [selector, attr] of URL_ATTRIBUTES) {
    root.find(selector).each((_, el) => {
      el.attribs[attr] = resolve(el.attribs[attr], base);
    });
  }
  root.find('img[srcset], source[srcset]').each((_, el) => {
    el.attribs.srcset = el.attribs.srcset
      .split(',')
      .map((part) => {
        const [url, ...descriptor] = part.trim().split(/\s+/);
        return url ? [resolve(url, base), ...descriptor].join(' ') : '';
      })
      .filter(Boolean)
      .join(', ');
  });
}

function replaceBase64Images(root: Cheerio<AnyNode>): void {
  root.find('img').each((_, el) => {
    if (/^\s*data:/i.test(el.attribs.src ?? '')) el.attribs.src = BASE64_IMAGE_PLACEHOLDER;
    if (/data:/i.test(el.attribs.srcset ?? '')) delete el.attribs.srcset;
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

/** Returns the cleaned HTML fragment for the `html` format (and the markdown conversion). */
export function contentHtml($: CheerioAPI, base: string, options: ContentOptions): string {
  $(NON_CONTENT).remove();
  removeComments($.root()[0]);
  const body: Cheerio<Element> = $('body').length > 0 ? $('body').first() : ($.root() as unknown as Cheerio<Element>);
  for (const selector of options.excludeTags) select(body, selector, 'excludeTags').remove();

  let root: Cheerio<AnyNode>;
  if (options.includeTags.length > 0) {
    // Explicitly included elements are kept as they are: onlyMainContent does not apply to them.
    root = $('<div></div>').append(included($, body, options.includeTags));
  } else {
    root = options.onlyMainContent ? selectMainContent($, body) : body;
  }
  // Row-less tables carry nothing, and the GFM table rule cannot handle them.
  root.find('table').filter((_, t) => $(t).find('tr').length === 0).remove();
  absolutize(root, base);
  if (options.removeBase64Images) replaceBase64Images(root);
  return (root.html() ?? '').trim();
}
