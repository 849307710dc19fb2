// The cheap look at a raw page that the native pass (native-pass.ts) decides on: tags found by
// regular expressions, no parser, no tree. It gathers what metadata and links read (dom.ts
// PageScan) and says whether mdream, given the raw page, would give the markdown the tree path
// gives. It reads tags as htmlparser2 does only on a plain subset of HTML (attributes spaced and
// quoted or simple, entities of a few kinds, the usual document shape); anything outside that
// subset, and anything the cleaning rules change (clean.ts, main-content.ts), declines the page,
// and the parsers answer. Declining is always safe; answering wrongly is what the test catches
// (test/native-pass.test.ts compares with the tree path on every fixture and corpus page).
import type { PageScan, Tag } from './dom.js';
import { isForceIncluded, isNonMain } from './main-content.js';

/**
 * Elements whose content the cleaning changes in ways mdream does not repeat: renamed or dropped
 * for the markdown (clean.ts READ_AS, NOT_READ), frames read as links, captions moved, MathML,
 * a <base> (URLs resolved against it); and obsolete elements mdream spaces otherwise in a body
 * than at the top (<center>), or that parsers read as raw text.
 */
const DECLINED: ReadonlySet<string> = new Set([
  'dl', 'dt', 'dd', 'details', 'summary', 'sub', 'sup', 'mark', 'fieldset', 'legend', 'textarea', 'svg', 'math',
  'iframe', 'frame', 'frameset', 'caption', 'base', 'template', 'embed', 'object', 'applet', 'html', 'head', 'body',
  'xmp', 'plaintext', 'listing', 'noembed', 'noframes', 'center', 'marquee', 'blink', 'nobr', 'dir', 'image', 'isindex', 'keygen', 'menuitem',
]);
/** What a head may hold here: anything else (text, a <div>) a browser, and maybe mdream, moves into the body. */
const HEAD_ELEMENTS: ReadonlySet<string> = new Set(['title', 'meta', 'link', 'script', 'style', 'noscript']);
/** Cells and rows outside a table: mdream reads them as a table row, the tree path's markdown as text. */
const TABLE_PARTS: ReadonlySet<string> = new Set(['tr', 'td', 'th', 'thead', 'tbody', 'tfoot']);
/**
 * htmlparser2's raw-text elements: their text runs to a matching end tag followed by '>' or a
 * space. A Map, as the other lookups by name: an object's properties would intern each name.
 */
const RAW_END: ReadonlyMap<string, RegExp> = new Map(
  ['script', 'style', 'title', 'textarea', 'xmp'].map((name) => [name, new RegExp(`</${name}[ \\t\\n\\f\\r>]`, 'gi')]),
);
/** A start tag of the plain subset: attributes separated by spaces, values quoted or simple. */
const START_TAG = /<([a-zA-Z][^ \t\n\f\r/>]*)((?:[ \t\n\f\r]+[^ \t\n\f\r"'<>/=]+(?:[ \t\n\f\r]*=[ \t\n\f\r]*(?:"[^"]*"|'[^']*'|[^ \t\n\f\r"'=<>`]+))?)*)[ \t\n\f\r]*\/?>/y;
const ATTRIBUTE = /[ \t\n\f\r]+([^ \t\n\f\r"'<>/=]+)(?:[ \t\n\f\r]*=[ \t\n\f\r]*(?:"([^"]*)"|'([^']*)'|([^ \t\n\f\r"'=<>`]+)))?/g;
/** Elements the scan reads (dom.ts PageScan) or checks whatever their attributes. */
const SCANNED: ReadonlySet<string> = new Set(['a', 'area', 'img', 'link', 'meta', 'html', 'body']);
/** Attributes plainElement reads, and entities (decode declines those it does not know). */
const ATTRIBUTES_READ = /&|id|class|style|hidden/i;
const NONE: Record<string, string> = Object.freeze({}) as Record<string, string>;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
/** htmlparser2's whitespace: ASCII only (a regular expression's \\s also takes U+00A0 and U+FEFF). */
const SPACE = /^[ \t\n\f\r]*$/;

/** Entities decoded the same in text and attributes, by any reader; any other '&' declines. */
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(?:([a-z]+)|#(\d{1,5})|#[xX]([0-9a-fA-F]{1,4}));/g;

/** The text with the plain entities decoded, or null when it holds another '&'. */
function decode(text: string): string | null {
  if (!text.includes('&')) return text;
  let bad = false;
  const out = text.replace(ENTITY, (whole, name?: string, dec?: string, hex?: string) => {
    const code = name !== undefined ? -1 : dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    const value = name !== undefined ? NAMED[name] : code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : undefined;
    if (value === undefined) bad = true;
    return value ?? whole;
  });
  return bad || text.replace(ENTITY, '').includes('&') ? null : out;
}

/** The attributes of a start tag as htmlparser2 gives them (names lowercased, the first of a name kept), or null. */
function attributesOf(source: string): Record<string, string> | null {
  // Without a prototype, a lookup of any name is an own property or undefined.
  const attribs = Object.create(null) as Record<string, string>;
  ATTRIBUTE.lastIndex = 0;
  for (let m = ATTRIBUTE.exec(source); m; m = ATTRIBUTE.exec(source)) {
    const name = m[1].toLowerCase();
    if (attribs[name] !== undefined) continue;
    const value = decode(m[2] ?? m[3] ?? m[4] ?? '');
    if (value === null) return null;
    attribs[name] = value;
  }
  return attribs;
}

export interface PrescanOptions {
  /** The page URL's origin: mdream makes root-relative URLs absolute against it, and only those. */
  origin: string;
  /** Resolves a URL as the tree path does (links.ts PageUrls), null when it does not parse. */
  resolve(url: string): string | null;
  onlyMainContent: boolean;
  removeBase64Images: boolean;
}

/** Whether mdream writes the URL as the tree path does: absolute already, or root-relative and plain. */
function sameUrl(value: string, options: PrescanOptions): boolean {
  if (value !== value.trim()) return false;
  if (value.charCodeAt(0) === 0x2f /* / */ && value.charCodeAt(1) !== 0x2f) {
    const resolved = options.resolve(value);
    return resolved !== null && resolved.length === options.origin.length + value.length
      && resolved.startsWith(options.origin) && resolved.endsWith(value);
  }
  return /^(data|javascript|mailto|tel):/i.test(value) || options.resolve(value) === value;
}

/**
 * Whether mdream reads the element as the cleaning leaves it: not force-included (its non-main
 * ancestors stay), not hidden or styled in a way mdream's filter drops (the tree path keeps
 * them), not removed by the list (the <html> or <body> itself, or inside a table, which the
 * cleaning drops when it loses its rows), links and images written with the same URL.
 */
function plainElement(tag: Tag, inTable: boolean, options: PrescanOptions): boolean {
  const { name, attribs } = tag;
  if (attribs.hidden !== undefined || (attribs.style !== undefined && /position|display|visibility/i.test(attribs.style))) return false;
  if (options.onlyMainContent && (isForceIncluded(tag) || ((inTable || name === 'html' || name === 'body') && isNonMain(tag)))) return false;
  if (name === 'a' && attribs.href !== undefined) return sameUrl(attribs.href, options);
  if (name === 'img' && attribs.src !== undefined) {
    return !(options.removeBase64Images && /^\s*data:/i.test(attribs.src)) && sameUrl(attribs.src, options);
  }
  return true;
}

/** Whether a comment sits between two runs of text: mdream writes a space there, the tree path nothing. */
function commentInText(html: string, start: number, end: number): boolean {
  const before = html.charCodeAt(start - 1);
  const after = html.charCodeAt(end);
  const isText = (c: number) => !Number.isNaN(c) && c !== 0x3c /* < */ && c !== 0x3e /* > */ && !isSpace(c);
  return isText(before) && (isText(after) || html.startsWith('<!--', end));
}

/**
 * The name of the end tag at `lt` (`</name>`, spaces allowed before the '>') as far as the scan
 * cares: the lowercased name where it is one the scan follows, '' for others, null when the tag
 * is not of that plain form. Read by hand: this runs for every end tag of the page.
 */
function endTagName(html: string, lt: number): string | null {
  let end = lt + 2;
  const first = html.charCodeAt(end) | 0x20;
  if (first < 0x61 || first > 0x7a) return null;
  for (let c = html.charCodeAt(end); end < html.length && !isSpace(c) && c !== 0x2f && c !== 0x3e; c = html.charCodeAt(++end));
  const nameEnd = end;
  while (isSpace(html.charCodeAt(end))) end++;
  if (html.charCodeAt(end) !== 0x3e /* > */) return null;
  const length = nameEnd - lt - 2;
  return length === 4 || length === 5 ? html.slice(lt + 2, nameEnd).toLowerCase() : '';
}

/** Where the scan is in the page's shape: doctype, <html>, <head>…</head>, <body>…, </body>, </html>. */
type Phase = 'before' | 'head' | 'between' | 'body' | 'after';

/** The page's scan when the native pass can answer it, else null. */
export function prescan(html: string, options: PrescanOptions): PageScan | null {
  const scan: PageScan = { html: null, title: null, base: null, metas: [], linkTags: [], anchors: [], images: [] };
  let phase: Phase = 'before';
  /** Per open table, whether a row was seen inside it (row-less tables are dropped by the cleaning). */
  const tables: boolean[] = [];
  let at = 0;
  for (;;) {
    const lt = html.indexOf('<', at);
    // Text outside the body would be content to mdream and nothing to the tree path.
    if (phase !== 'body' && !SPACE.test(html.slice(at, lt < 0 ? html.length : lt))) return null;
    if (lt < 0) break;
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith('<!--', lt)) {
      // htmlparser2 does not end a comment at `<!-->` or `<!--->`, as browsers do.
      if (html.startsWith('>', lt + 4) || html.startsWith('->', lt + 4)) return null;
      const end = html.indexOf('-->', lt + 4);
      // mdream (and browsers) also end one at `--!>`.
      if (end < 0 || html.slice(lt + 4, end).includes('--!>')) return null;
      if (phase === 'body' && commentInText(html, lt, end + 3)) return null;
      at = end + 3;
      continue;
    }
    if (next === 0x21 /* ! */) {
      const end = html.indexOf('>', lt);
      if (end < 0 || html.startsWith('<![', lt) || phase === 'body') return null;
      at = end + 1;
      continue;
    }
    if (next === 0x2f /* / */) {
      const name = endTagName(html, lt);
      if (name === null) return null;
      at = html.indexOf('>', lt) + 1;
      if (phase === 'body') {
        if (name === 'body') phase = 'after';
        else if (name === 'table') {
          if (tables.pop() === false) return null;
        } else if (name === 'html' || name === 'head') return null;
      } else if (phase === 'head') {
        if (name === 'head') phase = 'between';
        else if (name === 'body' || name === 'html') return null;
      } else if (name !== 'html' || phase !== 'after') return null;
      continue;
    }
    if (!((next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a))) {
      // '<' that starts no tag is text; '<?' is a directive the cleaning keeps.
      if (next === 0x3f /* ? */) return null;
      at = lt + 1;
      continue;
    }
    START_TAG.lastIndex = lt;
    const m = START_TAG.exec(html);
    if (!m) return null;
    at = START_TAG.lastIndex;
    const name = m[1].toLowerCase();
    // Attributes are read where the scan or the checks use them, or entities need checking.
    const attribs = m[2] && (SCANNED.has(name) || ATTRIBUTES_READ.test(m[2])) ? attributesOf(m[2]) : NONE;
    if (!attribs) return null;
    const tag: Tag = { name, attribs };
    if (phase !== 'body' && phase !== 'head') {
      // Before the body only <html> and <head> open; after it, nothing.
      if (name === 'html' && phase === 'before' && !scan.html) scan.html = tag;
      else if (name === 'head' && phase === 'before') phase = 'head';
      else if (name === 'body' && phase !== 'after') phase = 'body';
      else return null;
      if (!plainElement(tag, false, options)) return null;
      continue;
    }
    switch (name) {
      case 'a': case 'area': if (attribs.href !== undefined) scan.anchors.push(tag); break;
      case 'img': if (attribs.src !== undefined) scan.images.push(tag); break;
      case 'link': if (attribs.href !== undefined) scan.linkTags.push(tag); break;
      case 'meta': scan.metas.push(tag); break;
    }
    if (phase === 'head') {
      if (!HEAD_ELEMENTS.has(name)) return null;
    } else {
      if (DECLINED.has(name) || !plainElement(tag, tables.length > 0, options)) return null;
      if (tables.length === 0 && TABLE_PARTS.has(name)) return null;
      if (name === 'table') tables.push(false);
      else if (name === 'tr') tables.fill(true);
    }
    const rawEnd = RAW_END.get(name);
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
  if (phase !== 'body' && phase !== 'after') return null;
  return tables.includes(false) ? null : scan;
}
