// The cheap look at a raw page that the native pass (native-pass.ts) stands on: tags read in one
// forward scan (start tags by native-start-tag.ts), no parser, no tree. It gathers what metadata
// and links read (dom.ts PageScan) and the body's source with what the cleaning removes cut out
// (clean.ts NON_CONTENT, comments, main-content.ts's list, inputs), frames replaced by their links
// and renamed elements renamed: the HTML the tree path would give mdream, as written rather than
// re-serialized. That holds only where the source is read as htmlparser2 reads it, so the scan
// takes a plain subset of HTML: strictly nested tags (no implied end tags, which mdream's parser
// may place otherwise), attributes spaced and quoted or simple, entities of a few kinds, the usual
// document shape. Anything outside it, and what the cleaning changes otherwise (captions moved,
// row-less tables dropped, URLs not already as the tree path writes them), declines the page and
// the parsers answer. Declining is always safe; answering wrongly is what test/native-pass.test.ts
// looks for (every fixture, corpus and demo page).
import { FRAME_LINK_TEXT } from './clean.js';
import type { PageScan, Tag } from './dom.js';
import { isPlainPath } from './links.js';
import { isForceIncluded, isNonMain } from './main-content.js';
import { elementAt, Kind, type ElementInfo } from './native-elements.js';
import { decode, referencesAgree } from './native-references.js';
import { isSpace, NO_ATTRIBUTES, StartTagReader } from './native-start-tag.js';
import { esc } from './text.js';

/**
 * The link a frame is read as (clean.ts frameLink, its href resolved as the cleaning resolves it),
 * '' for a frame without a source, null where the link would not reach mdream as an absolute URL.
 */
function frameLink(attribs: Record<string, string>, options: PrescanOptions): string | null {
  const src = attribs.src?.trim();
  if (!src) return '';
  const href = options.resolve(src);
  if (href === null || !/^https?:/.test(href) || /^(data|javascript|mailto|tel):/i.test(src)) return null;
  return `<a href="${esc(href)}">${FRAME_LINK_TEXT}</a>`;
}

/** Where htmlparser2 reads `<x/>` as closed (SVG, MathML), and the elements inside them where it does not again. */
const FOREIGN: ReadonlySet<string> = new Set(['svg', 'math']);
const INTEGRATION: ReadonlySet<string> = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title']);

/** Whether the innermost open element that decides it is an <svg> or <math> (htmlparser2's foreign context). */
function inForeignContent(open: readonly ElementInfo[]): boolean {
  for (let i = open.length - 1; i >= 0; i--) {
    if (FOREIGN.has(open[i].name)) return true;
    if (INTEGRATION.has(open[i].name)) return false;
  }
  return false;
}
/** htmlparser2's whitespace: ASCII only (a regular expression's \\s also takes U+00A0 and U+FEFF). */
const SPACE = /^[ \t\n\f\r]*$/;

export interface PrescanOptions {
  /** The page URL's origin: mdream makes root-relative URLs absolute against it, and only those. */
  origin: string;
  /** Resolves a URL as the tree path does (links.ts PageUrls), null when it does not parse. */
  resolve(url: string): string | null;
  /** Whether a plain root-relative path (links.ts isPlainPath) resolves to the origin followed by it: not where the page URL holds user info. */
  plainPathsAsWritten: boolean;
  onlyMainContent: boolean;
  removeBase64Images: boolean;
}

/** Whether mdream writes the URL as the tree path does: absolute already, or root-relative and plain. */
function sameUrl(value: string, options: PrescanOptions): boolean {
  if (value !== value.trim()) return false;
  if (value.charCodeAt(0) === 0x2f /* / */ && value.charCodeAt(1) !== 0x2f) {
    if (options.plainPathsAsWritten && isPlainPath(value)) return true;
    const resolved = options.resolve(value);
    return resolved !== null && resolved.length === options.origin.length + value.length
      && resolved.startsWith(options.origin) && resolved.endsWith(value);
  }
  return /^(data|javascript|mailto|tel):/i.test(value) || options.resolve(value) === value;
}

/**
 * Whether mdream gets the element's URL as the tree path writes it: links and images written
 * absolute or root-relative and plain, no data: image where those are removed.
 */
function plainUrl(tag: Tag, options: PrescanOptions): boolean {
  const { name, attribs } = tag;
  if (name === 'a' && attribs.href !== undefined) return sameUrl(attribs.href, options);
  if (name === 'img' && attribs.src !== undefined) {
    return !(options.removeBase64Images && /^\s*data:/i.test(attribs.src)) && sameUrl(attribs.src, options);
  }
  return true;
}

/**
 * The lowercased name of the end tag at `lt` (`</name>`, spaces allowed before the '>'), or null
 * when the tag is not of that plain form. Read by hand: this runs for every end tag of the page.
 */
function endTagName(html: string, lt: number): string | null {
  let end = lt + 2;
  const first = html.charCodeAt(end) | 0x20;
  if (first < 0x61 || first > 0x7a) return null;
  for (let c = html.charCodeAt(end); end < html.length && !isSpace(c) && c !== 0x2f && c !== 0x3e; c = html.charCodeAt(++end));
  const nameEnd = end;
  while (isSpace(html.charCodeAt(end))) end++;
  if (html.charCodeAt(end) !== 0x3e /* > */) return null;
  return html.slice(lt + 2, nameEnd).toLowerCase();
}

/** Whether `name` is written at html[at]: compared in a loop, cheaper than a call for names this short. */
function writtenAt(html: string, at: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (html.charCodeAt(at + k) !== name.charCodeAt(k)) return false;
  return true;
}

/** Where the scan is in the page's shape: doctype, <html>, <head>…</head>, <body>…, </body>, </html>. */
type Phase = 'before' | 'head' | 'between' | 'body' | 'after';

export interface Prescan {
  scan: PageScan;
  /** The body's inner HTML with what the cleaning removes cut out: what the tree path gives mdream. */
  content: string;
}

/** The page's scan and content when the native pass can answer it, else null. */
export function prescan(html: string, options: PrescanOptions): Prescan | null {
  const scan: PageScan = { html: null, title: null, base: null, metas: [], linkTags: [], anchors: [], images: [] };
  let phase: Phase = 'before';
  // Open elements (htmlparser2's stack, which strict nesting keeps equal to the source's), and
  // where each began. Pages whose tags close out of order, or that lean on implied end tags, are
  // declined: there htmlparser2 and mdream may build different trees.
  const open: ElementInfo[] = [];
  const starts: number[] = [];
  /** What each open element is renamed to in the content (clean.ts READ_AS), if it is. */
  const renamed: (string | undefined)[] = [];
  /** Per open table, whether a row was seen inside it (row-less tables are dropped by the cleaning). */
  const tables: boolean[] = [];
  // The content is built from the body's source with removed ranges cut: `cutAt` is the depth of
  // the element being cut (-1: none), `kept` where the source was last copied from.
  let content = '';
  let kept = -1;
  let cutAt = -1;
  /** What the element being cut is replaced with (a frame's link). */
  let cutFor = '';
  const cut = (from: number, to: number, replacement = '') => {
    content += html.slice(kept, from) + replacement;
    kept = to;
  };
  let at = 0;
  const reader = new StartTagReader();
  /** Closes the innermost open element at its end tag (`lt` to `at`); false where the page is declined. */
  const closeTop = (lt: number): boolean => {
    const { name } = open.pop()!;
    const start = starts.pop()!;
    const readAs = renamed.pop();
    if (name === 'table' && tables.pop() === false && cutAt < 0) return false;
    if (cutAt === open.length) {
      cutAt = -1;
      cut(start, at, cutFor);
    } else if (readAs) cut(lt, at, `</${readAs}>`);
    return true;
  };
  for (;;) {
    const lt = html.indexOf('<', at);
    // Text outside the body and head: htmlparser2 and mdream may place it differently.
    if (phase !== 'body' && phase !== 'head' && !SPACE.test(html.slice(at, lt < 0 ? html.length : lt))) return null;
    if (lt < 0) break;
    const next = html.charCodeAt(lt + 1);
    if (next === 0x21 /* ! */ && html.startsWith('--', lt + 2)) {
      // htmlparser2 does not end a comment at `<!-->` or `<!--->`, as browsers do.
      if (html.startsWith('>', lt + 4) || html.startsWith('->', lt + 4)) return null;
      const end = html.indexOf('-->', lt + 4);
      // mdream (and browsers) also end one at `--!>`.
      if (end < 0 || html.slice(lt + 4, end).includes('--!>')) return null;
      at = end + 3;
      if (phase === 'body' && cutAt < 0) cut(lt, at);
      continue;
    }
    if (next === 0x21 /* ! */) {
      const end = html.indexOf('>', lt);
      if (end < 0 || html.startsWith('<![', lt) || phase === 'body') return null;
      at = end + 1;
      continue;
    }
    if (next === 0x2f /* / */) {
      // Most end tags close the innermost element, written as it was opened: compared in place.
      const top = open.length > 0 ? open[open.length - 1].name : undefined;
      if (top !== undefined && html.charCodeAt(lt + 2 + top.length) === 0x3e /* > */ && writtenAt(html, lt + 2, top)) {
        at = lt + 3 + top.length;
        if (!closeTop(lt)) return null;
        continue;
      }
      const name = endTagName(html, lt);
      if (name === null) return null;
      at = html.indexOf('>', lt) + 1;
      if (phase === 'body' && name === 'body') {
        if (open.length > 0) return null;
        content += html.slice(kept, lt);
        kept = -1;
        phase = 'after';
      } else if (phase === 'head' && name === 'head') {
        if (open.length > 0) return null;
        phase = 'between';
      } else if (phase === 'body' || phase === 'head') {
        if (top !== name || !closeTop(lt)) return null;
      } else if (name !== 'html' || phase !== 'after') return null;
      continue;
    }
    if (!((next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a))) {
      // '<' that starts no tag is text; '<?' is a directive the cleaning keeps.
      if (next === 0x3f /* ? */) return null;
      at = lt + 1;
      continue;
    }
    if (!reader.read(html, lt)) return null;
    at = reader.end;
    const element = elementAt(html, reader.nameStart, reader.nameEnd);
    const { name, kind } = element;
    // Attributes are read where the scan or the checks use them, or entities need checking.
    const attribs = kind & Kind.Scanned || reader.marked ? reader.attributes() : NO_ATTRIBUTES;
    if (!attribs) return null;
    const tag: Tag = { name, attribs };
    if (phase !== 'body' && phase !== 'head') {
      // Before the body only <html> and <head> open; after it, nothing.
      if (name === 'html' && phase === 'before' && !scan.html) scan.html = tag;
      else if (name === 'head' && phase === 'before') phase = 'head';
      else if (name === 'body' && phase !== 'after') {
        phase = 'body';
        kept = at;
      } else return null;
      continue;
    }
    switch (name) {
      case 'a': case 'area': if (attribs.href !== undefined) scan.anchors.push(tag); break;
      case 'img': if (attribs.src !== undefined) scan.images.push(tag); break;
      case 'link': if (attribs.href !== undefined) scan.linkTags.push(tag); break;
      case 'meta': scan.metas.push(tag); break;
    }
    // Without attributes read, an element is neither force-included nor matched by the list but by its name.
    const forced = options.onlyMainContent && attribs !== NO_ATTRIBUTES && isForceIncluded(tag);
    let nonMain = false;
    let removed = false;
    if (phase === 'head') {
      if (!(kind & Kind.Head)) return null;
    } else if (cutAt < 0) {
      nonMain = options.onlyMainContent && (attribs === NO_ATTRIBUTES ? (kind & Kind.NonMainByName) !== 0 : isNonMain(tag));
      // A force-included element keeps its non-main ancestors; one removed by the list inside a
      // table may leave it without rows, which the cleaning drops.
      if (kind & Kind.Declined || forced || (nonMain && tables.length > 0) || !plainUrl(tag, options)) return null;
      if (tables.length === 0 && kind & Kind.TablePart) return null;
      // What the cleaning removes (clean.ts NON_CONTENT, main-content.ts), cut from the content.
      removed = (kind & Kind.Cut) !== 0 || nonMain;
    } else if (kind & Kind.Structure || forced) {
      // Inside a removed element only what reaches beyond it matters: a force-included element
      // keeps it, a <base> moves every URL, the document's own elements.
      return null;
    }
    if (element.closes !== 0 && open.length > 0 && (element.closes & open[open.length - 1].bit) !== 0) return null;
    if (name === 'table') tables.push(false);
    // A row counts for every open table; those that had one already are the outer ones.
    else if (name === 'tr' && cutAt < 0) for (let i = tables.length - 1; i >= 0 && !tables[i]; i--) tables[i] = true;
    if (kind & Kind.Void || (reader.selfClosing && inForeignContent(open))) {
      if (removed) cut(lt, at);
    } else {
      if (removed) {
        const link = name === 'iframe' && !nonMain ? frameLink(attribs, options) : '';
        if (link === null) return null;
        cutAt = open.length;
        cutFor = link;
      }
      const readAs = phase === 'body' && cutAt < 0 ? element.readAs : undefined;
      if (readAs) cut(lt, lt + 1 + name.length, `<${readAs}`);
      open.push(element);
      starts.push(lt);
      renamed.push(readAs);
    }
    const rawEnd = element.rawEnd;
    if (rawEnd) {
      rawEnd.lastIndex = at;
      const end = rawEnd.exec(html);
      if (!end) return null;
      if (name === 'title' && scan.title === null) {
        scan.title = decode(html.slice(at, end.index));
        if (scan.title === null) return null;
      }
      at = end.index;
    }
  }
  // An element cut but not closed runs to the end of the page.
  if (phase === 'body') content += html.slice(kept, cutAt < 0 ? html.length : starts[cutAt]);
  else if (phase !== 'after') return null;
  return tables.includes(false) || !referencesAgree(content) ? null : { scan, content };
}
