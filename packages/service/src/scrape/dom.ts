// Plain walks over the parsed page (domhandler nodes). Conversion reads and cleans the tree in a
// few passes like these instead of one CSS query per item: selector matching was over a third
// of the conversion's CPU on 15 KB pages.
import type { AnyNode, Element, ParentNode } from 'domhandler';

export function isElement(node: AnyNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

/**
 * Visits every element below `root` (not `root` itself) in document order. `visit` returns
 * false to skip an element's children (it may have removed the element).
 */
export function eachElement(root: ParentNode, visit: (el: Element) => boolean | void): void {
  const stack: AnyNode[] = [];
  for (let i = root.children.length - 1; i >= 0; i--) stack.push(root.children[i]);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    if (visit(node) === false) continue;
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** Detaches a node from its parent and siblings. */
export function removeNode(node: AnyNode): void {
  if (node.prev) node.prev.next = node.next;
  if (node.next) node.next.prev = node.prev;
  const parent = node.parent;
  if (parent) {
    const index = parent.children.lastIndexOf(node);
    if (index >= 0) parent.children.splice(index, 1);
  }
  node.prev = node.next = node.parent = null;
}

/** Puts `replacement` (detached) where `node` is, and detaches `node`. */
export function replaceNode(node: AnyNode, replacement: AnyNode): void {
  const parent = node.parent;
  if (parent) parent.children[parent.children.lastIndexOf(node)] = replacement;
  replacement.parent = parent;
  replacement.prev = node.prev;
  replacement.next = node.next;
  if (node.prev) node.prev.next = replacement;
  if (node.next) node.next.prev = replacement;
  node.prev = node.next = node.parent = null;
}

/** Appends a detached node as the last child of `parent`. */
export function appendChild(parent: ParentNode, node: AnyNode): void {
  const last = parent.children.at(-1) ?? null;
  if (last) last.next = node;
  node.prev = last;
  node.next = null;
  node.parent = parent;
  parent.children.push(node);
}

/** Puts a detached node right after `node` (which has a parent). */
export function insertAfter(node: AnyNode, inserted: AnyNode): void {
  const parent = node.parent!;
  parent.children.splice(parent.children.indexOf(node) + 1, 0, inserted);
  inserted.parent = parent;
  inserted.prev = node;
  inserted.next = node.next;
  if (node.next) node.next.prev = inserted;
  node.next = inserted;
}

/** An element as metadata and links read it: its name and attributes. */
export interface Tag {
  name: string;
  attribs: Record<string, string>;
}

/** What metadata and links read from a page, gathered in one walk (one-pass.ts gathers the same while it parses). */
export interface PageScan {
  /** The first <html> and <base href>, and the text of the first <title>. */
  html: Tag | null;
  title: string | null;
  base: Tag | null;
  metas: Tag[];
  /** <link href> elements. */
  linkTags: Tag[];
  /** <a href> and <area href> elements. */
  anchors: Tag[];
  /** <img src> elements. */
  images: Tag[];
}

/** The scan of a parsed page, with its first <body> (where content is looked for). */
export function scanPage(root: ParentNode): PageScan & { body: Element | null } {
  let title: Element | null = null;
  const scan: PageScan & { body: Element | null } = { html: null, body: null, title: null, base: null, metas: [], linkTags: [], anchors: [], images: [] };
  eachElement(root, (el) => {
    const attribs = el.attribs;
    switch (el.name) {
      case 'a': case 'area': if (attribs.href !== undefined) scan.anchors.push(el); break;
      case 'img': if (attribs.src !== undefined) scan.images.push(el); break;
      case 'link': if (attribs.href !== undefined) scan.linkTags.push(el); break;
      case 'meta': scan.metas.push(el); break;
      case 'title': title ??= el; break;
      case 'base': if (attribs.href !== undefined) scan.base ??= el; break;
      case 'html': scan.html ??= el; break;
      case 'body': scan.body ??= el; break;
    }
  });
  scan.title = title ? textOf(title) : null;
  return scan;
}

/** The text of a node and its descendants (what cheerio's .text() returns). */
export function textOf(node: AnyNode): string {
  if (node.type === 'text') return node.data;
  if (!('children' in node)) return '';
  let out = '';
  for (const child of node.children) out += textOf(child);
  return out;
}
