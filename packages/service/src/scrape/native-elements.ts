// What the native prescan (native-prescan.ts) knows of an element by its name, gathered in one
// record per name: the scan looks each start tag up once instead of in a set per question.
import { READ_AS } from './clean.js';
import { isNonMain } from './main-content.js';
import { SourceNames } from './source-names.js';

/**
 * Elements the cleaning changes in ways the prescan does not repeat: form controls and drawings
 * dropped after the row-less tables (clean.ts NOT_READ), captions moved, MathML; a <base> (URLs
 * resolved against it); and obsolete elements, or ones parsers read as raw text, where the
 * parsers were not compared. Renamed elements (clean.ts READ_AS), frames and <input> are
 * rewritten in the content as the cleaning does.
 */
const DECLINED = [
  'textarea', 'svg', 'math', 'frame', 'frameset', 'caption', 'base', 'template', 'embed', 'object', 'applet', 'html', 'head', 'body',
  'xmp', 'plaintext', 'listing', 'noembed', 'noframes', 'center', 'marquee', 'blink', 'nobr', 'dir', 'image', 'isindex', 'keygen', 'menuitem',
];
/** What a head may hold here: with anything else (text, a <div>) the page's shape is not the usual one. */
const HEAD_ELEMENTS = ['title', 'meta', 'link', 'script', 'style', 'noscript'];
/** htmlparser2's void elements: never open, so never closed. */
const VOID = [
  'area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr',
];
/** Removed with their content by the cleaning (clean.ts NON_CONTENT; the others there are declined); frames are also read as links. */
const CUT = ['script', 'style', 'noscript', 'link', 'meta', 'input', 'iframe'];
/** Elements that change the whole document wherever they are. */
const STRUCTURE = ['base', 'html', 'head', 'body'];
/** Cells and rows outside a table: mdream's reading of them was not compared (it depends on what surrounds them). */
const TABLE_PARTS = ['tr', 'td', 'th', 'thead', 'tbody', 'tfoot'];
/** Elements the scan reads (dom.ts PageScan) or checks whatever their attributes. */
const SCANNED = ['a', 'area', 'img', 'link', 'meta', 'html', 'body', 'iframe'];
/** Start tags htmlparser2 lets close an open element (its openImpliesClose), by the element they close. */
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
const OPEN_IMPLIES_CLOSE: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['tr', ['tr', 'th', 'td']], ['th', ['th']], ['td', ['thead', 'th', 'td']], ['li', ['li']], ['option', ['option']],
  ['optgroup', ['optgroup', 'option']], ['dd', ['dd', 'dt']], ['dt', ['dd', 'dt']], ['rt', ['rt', 'rp']], ['rp', ['rt', 'rp']],
  ['tbody', ['thead', 'tbody']], ['tfoot', ['thead', 'tbody']],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((name): [string, string[]] => [name, FORM]),
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption',
    'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map((name): [string, string[]] => [name, ['p']]),
].map(([name, closed]) => [name as string, new Set(closed)]));
/** htmlparser2's raw-text elements: their text runs to a matching end tag followed by '>' or a space. */
const RAW_TEXT = ['script', 'style', 'title', 'textarea', 'xmp'];

/** What an element is to the prescan, as bits of ElementInfo.kind. */
export const Kind = {
  Declined: 1,
  Head: 2,
  Void: 4,
  Cut: 8,
  Structure: 16,
  TablePart: 32,
  Scanned: 64,
  /** Matched by the removal list by its name alone (main-content.ts isNonMain without attributes). */
  NonMainByName: 128,
} as const;

export interface ElementInfo {
  /** The name, interned: compared and kept on the open elements' stack. */
  readonly name: string;
  readonly kind: number;
  /** The elements a start tag of this name closes when open (htmlparser2's openImpliesClose), as their `bit`s. */
  readonly closes: number;
  /** This element's bit among those a start tag may close, else 0. */
  readonly bit: number;
  /** What the cleaning renames it to (clean.ts READ_AS). */
  readonly readAs: string | undefined;
  /** Where a raw-text element's text ends. */
  readonly rawEnd: RegExp | undefined;
}

/** The elements a start tag may close, each given a bit. */
const CLOSABLE = [...new Set([...OPEN_IMPLIES_CLOSE.values()].flatMap((closed) => [...closed]))];
const bitOf = (name: string): number => (CLOSABLE.includes(name) ? 1 << CLOSABLE.indexOf(name) : 0);

const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

function info(name: string): ElementInfo {
  const kind = (DECLINED.includes(name) ? Kind.Declined : 0) | (HEAD_ELEMENTS.includes(name) ? Kind.Head : 0)
    | (VOID.includes(name) ? Kind.Void : 0) | (CUT.includes(name) ? Kind.Cut : 0) | (STRUCTURE.includes(name) ? Kind.Structure : 0)
    | (TABLE_PARTS.includes(name) ? Kind.TablePart : 0) | (SCANNED.includes(name) ? Kind.Scanned : 0)
    | (isNonMain({ name, attribs: NO_ATTRIBUTES }) ? Kind.NonMainByName : 0);
  return {
    name,
    kind,
    closes: [...OPEN_IMPLIES_CLOSE.get(name) ?? []].reduce((mask, closed) => mask | bitOf(closed), 0),
    bit: bitOf(name),
    readAs: Object.hasOwn(READ_AS, name) ? READ_AS[name] : undefined,
    rawEnd: RAW_TEXT.includes(name) ? new RegExp(`</${name}[ \\t\\n\\f\\r>]`, 'gi') : undefined,
  };
}

/** Every element named above, and the usual ones of a page's content. */
const KNOWN: ReadonlyMap<string, ElementInfo> = new Map([
  ...DECLINED, ...HEAD_ELEMENTS, ...VOID, ...CUT, ...STRUCTURE, ...TABLE_PARTS, ...SCANNED, ...FORM, ...OPEN_IMPLIES_CLOSE.keys(),
  ...RAW_TEXT, ...Object.keys(READ_AS), 'header', 'footer', 'nav', 'aside', 'main', 'article', 'section', 'span', 'b', 'i', 'em',
  'strong', 'code', 'small', 'u', 's', 'q', 'cite', 'abbr', 'time', 'label', 'picture', 'video', 'audio', 'figure', 'kbd', 'var', 'samp',
].map((name) => [name, info(name)]));

/** The known elements, found where the page writes their names. */
const IN_SOURCE = new SourceNames(KNOWN);

/**
 * What the prescan knows of the element whose name is written at html[start, end). A name written
 * in lower case, as most are, is found from the source without taking it out as a string.
 */
export function elementAt(html: string, start: number, end: number): ElementInfo {
  const found = IN_SOURCE.at(html, start, end);
  if (found) return found;
  const name = html.slice(start, end).toLowerCase();
  // Any other name (custom elements) is looked at on its own, not kept: pages choose their names.
  return KNOWN.get(name) ?? info(name);
}
