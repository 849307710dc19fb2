// Start tags as the native prescan (native-prescan.ts) reads them, by hand rather than with a
// regular expression: this runs for every tag of every page, and a match array with its
// substrings per tag cost more than the rest of the scan. The grammar is the prescan's plain
// subset: a name, attributes separated by spaces, values quoted or simple, then `>` or `/>`.
// Each of its pieces ends at a character the next cannot start with, so one forward read finds
// what a backtracking match would: the same tags, the same attributes, the same refusals.
import { decode } from './native-references.js';
import { SourceNames } from './source-names.js';

const NONE: Record<string, string> = Object.freeze({}) as Record<string, string>;

export const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
/** An attribute name's characters: not space, `"`, `'`, `<`, `>`, `/`, `=` (NaN, past the end, is none). */
const isNameChar = (c: number) => c === c && !isSpace(c) && c !== 0x22 && c !== 0x27 && c !== 0x3c && c !== 0x3e && c !== 0x2f && c !== 0x3d;
/** An unquoted value's characters: not space, `"`, `'`, `=`, `<`, `>`, or a backtick. */
const isValueChar = (c: number) => c === c && !isSpace(c) && c !== 0x22 && c !== 0x27 && c !== 0x3d && c !== 0x3c && c !== 0x3e && c !== 0x60;
/** Whether html[start, end) is `id` or `class` in any case (no other character lowercases to these letters). */
function isIdOrClass(html: string, start: number, end: number): boolean {
  if (end - start === 2) return (html.charCodeAt(start) | 0x20) === 0x69 && (html.charCodeAt(start + 1) | 0x20) === 0x64;
  return end - start === 5 && (html.charCodeAt(start) | 0x20) === 0x63 && (html.charCodeAt(start + 1) | 0x20) === 0x6c
    && (html.charCodeAt(start + 2) | 0x20) === 0x61 && (html.charCodeAt(start + 3) | 0x20) === 0x73 && (html.charCodeAt(start + 4) | 0x20) === 0x73;
}

/** Attribute names pages use most, found where the page writes them. */
const COMMON_NAMES = new SourceNames([
  'href', 'src', 'class', 'id', 'rel', 'name', 'content', 'property', 'itemprop', 'lang', 'alt', 'title', 'charset', 'type', 'srcset',
  'width', 'height', 'target', 'style', 'hidden', 'role', 'loading', 'sizes', 'media', 'http-equiv', 'colspan', 'rowspan', 'value',
].map((name) => [name, name] as [string, string]));

/**
 * The lowercased attribute name written at html[start, end). A common name written in lower case
 * is given as the constant string: an object's properties are keyed by such strings, and a key
 * made from the page would first be looked up in the engine's table of them.
 */
function attributeName(html: string, start: number, end: number): string {
  return COMMON_NAMES.at(html, start, end) ?? html.slice(start, end).toLowerCase();
}

/**
 * Reads one start tag at a time; what it read stays in its fields until the next read. The
 * attributes are kept as positions and made into an object only when asked for.
 */
export class StartTagReader {
  /** Where the name is written: html[nameStart, nameEnd). */
  nameStart = 0;
  nameEnd = 0;
  /** Where the tag ends (after its '>'). */
  end = 0;
  /** Whether it ends with `/>`. */
  selfClosing = false;
  /** Whether an attribute is named id or class, or a value holds a reference: what the checks read. */
  marked = false;
  private html = '';
  /** Per attribute: name start, name end, value start, value end (-1 without a value); `count` of them hold this tag's. */
  private readonly spans: number[] = [];
  private count = 0;

  /** Reads the start tag at `lt` (a '<' followed by a letter); false where it is not of the plain subset. */
  read(html: string, lt: number): boolean {
    this.html = html;
    const spans = this.spans;
    let count = 0;
    this.marked = false;
    let i = lt + 1;
    for (let c = html.charCodeAt(i); c === c && !isSpace(c) && c !== 0x2f && c !== 0x3e; c = html.charCodeAt(++i));
    this.nameStart = lt + 1;
    this.nameEnd = i;
    for (;;) {
      let j = i;
      while (isSpace(html.charCodeAt(j))) j++;
      if (j === i || !isNameChar(html.charCodeAt(j))) {
        // No attribute follows: the tag ends here or is not plain.
        if (html.charCodeAt(j) === 0x2f) j++;
        if (html.charCodeAt(j) !== 0x3e) return false;
        this.end = j + 1;
        this.count = count;
        // The '/' may also end an unquoted value (`<a href=/x/>`): the tag's text ends with "/>" either way.
        this.selfClosing = html.charCodeAt(j - 1) === 0x2f;
        return true;
      }
      const nameStart = j;
      while (isNameChar(html.charCodeAt(j))) j++;
      const nameEnd = j;
      while (isSpace(html.charCodeAt(j))) j++;
      let valueStart = -1;
      let valueEnd = -1;
      if (html.charCodeAt(j) === 0x3d /* = */) {
        j++;
        while (isSpace(html.charCodeAt(j))) j++;
        const q = html.charCodeAt(j);
        let c: number;
        let amp = false;
        if (q === 0x22 || q === 0x27) {
          valueStart = ++j;
          for (c = html.charCodeAt(j); c !== q; c = html.charCodeAt(++j)) {
            if (c !== c) return false;
            if (c === 0x26) amp = true;
          }
          valueEnd = j;
          i = j + 1;
        } else {
          valueStart = j;
          for (c = html.charCodeAt(j); isValueChar(c); c = html.charCodeAt(++j)) if (c === 0x26) amp = true;
          if (j === valueStart) return false;
          valueEnd = i = j;
        }
        if (amp) this.marked = true;
      } else i = nameEnd;
      if (!this.marked && isIdOrClass(html, nameStart, nameEnd)) this.marked = true;
      spans[count] = nameStart;
      spans[count + 1] = nameEnd;
      spans[count + 2] = valueStart;
      spans[count + 3] = valueEnd;
      count += 4;
    }
  }

  /**
   * The attributes of the tag read, as htmlparser2 gives them (names lowercased, the first of a
   * name kept, values decoded), or null where a value holds a reference decode does not know.
   */
  attributes(): Record<string, string> | null {
    const spans = this.spans;
    if (this.count === 0) return NONE;
    const html = this.html;
    // Without a prototype, a lookup of any name is an own property or undefined.
    const attribs = Object.create(null) as Record<string, string>;
    for (let k = 0; k < this.count; k += 4) {
      const name = attributeName(html, spans[k], spans[k + 1]);
      if (attribs[name] !== undefined) continue;
      const value = spans[k + 2] < 0 ? '' : decode(html.slice(spans[k + 2], spans[k + 3]));
      if (value === null) return null;
      attribs[name] = value;
    }
    return attribs;
  }
}

/** The attributes of a tag whose attributes no check reads. */
export const NO_ATTRIBUTES = NONE;
