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
 * a <base> (URLs resolved against it), elements mdream writes as HTML or reads otherwise.
 */
const DECLINED: ReadonlySet<string> = new Set([
  'dl', 'dt', 'dd', 'details', 'summary', 'sub', 'sup', 'mark', 'fieldset', 'legend', 'textarea', 'svg', 'math',
  'iframe', 'frame', 'frameset', 'caption', 'base', 'template', 'embed', 'object', 'xmp', 'plaintext', 'html', 'head', 'body',
]);
/** htmlparser2's raw-text elements: their text runs to a matching end tag followed by '>' or a space. */
const RAW_END: Readonly<Record<string, RegExp>> = Object.fromEntries(
  ['script', 'style', 'title', 'textarea', 'xmp'].map((name) => [name, new RegExp(`</${name}[\\s>]`, 'gi')]),
);
/** A start tag of the plain subset: attributes separated by spaces, values quoted or simple. */
const START_TAG = /<([a-zA-Z][^\s/>]*)((?:\s+[^\s"'<>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/y;
const ATTRIBUTE = /\s+([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const END_TAG = /<\/([a-zA-Z][^\s/>]*)\s*>/y;
const SPACE = /^\s*$/;

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
  const attribs: Record<string, string> = {};
  for (const m of source.matchAll(ATTRIBUTE)) {
    const name = m[1].toLowerCase();
    if (Object.prototype.hasOwnProperty.call(attribs, name)) continue;
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
  if (/^(data|javascript|mailto|tel):/i.test(value)) return true;
  const resolved = options.resolve(value);
  const written = value.startsWith('/') && !value.startsWith('//') ? options.origin + value : value;
  return resolved === written && value === value.trim();
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
    const text = html.slice(at, lt < 0 ? html.length : lt);
    // Text outside the head and body would be content to mdream and nothing to the tree path.
    if (phase !== 'head' && phase !== 'body' && !SPACE.test(text)) return null;
    if (lt < 0) break;
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith('<!--', lt)) {
      // htmlparser2 does not end a comment at `<!-->` or `<!--->`, as browsers do.
      if (html.startsWith('>', lt + 4) || html.startsWith('->', lt + 4)) return null;
      const end = html.indexOf('-->', lt + 4);
      if (end < 0) return null;
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
      END_TAG.lastIndex = lt;
      const m = END_TAG.exec(html);
      if (!m) return null;
      at = END_TAG.lastIndex;
      const name = m[1].toLowerCase();
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
    const attribs = m[2] ? attributesOf(m[2]) : {};
    if (!attribs) return null;
    const tag: Tag = { name, attribs };
    if (phase !== 'body' && phase !== 'head') {
      // Before the body only <html> and <head> open; after it, nothing.
      if (name === 'html' && phase === 'before' && !scan.html) scan.html = tag;
      else if (name === 'head' && phase === 'before') phase = 'head';
      else if (name === 'body' && phase !== 'after') phase = 'body';
      else return null;
      continue;
    }
    switch (name) {
      case 'a': case 'area': if (attribs.href !== undefined) scan.anchors.push(tag); break;
      case 'img': if (attribs.src !== undefined) scan.images.push(tag); break;
      case 'link': if (attribs.href !== undefined) scan.linkTags.push(tag); break;
      case 'meta': scan.metas.push(tag); break;
    }
    if (phase === 'head') {
      if (name === 'body' || name === 'base' || name === 'html' || name === 'head') return null;
    } else {
      if (DECLINED.has(name)) return null;
      if (options.onlyMainContent && isForceIncluded(tag)) return null;
      // The cleaning drops a table left without rows by the removal list; mdream's filter leaves it.
      if (options.onlyMainContent && tables.length > 0 && isNonMain(tag)) return null;
      // mdream's filter drops positioned elements; the tree path keeps them.
      if (attribs.style !== undefined && /position/i.test(attribs.style)) return null;
      if (name === 'a' && attribs.href !== undefined && !sameUrl(attribs.href, options)) return null;
      if (name === 'img' && attribs.src !== undefined) {
        if (options.removeBase64Images && /^\s*data:/i.test(attribs.src)) return null;
        if (!sameUrl(attribs.src, options)) return null;
      }
      if (name === 'table') tables.push(false);
      else if (name === 'tr') tables.fill(true);
    }
    const rawEnd = RAW_END[name];
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
