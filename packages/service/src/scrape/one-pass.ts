// One HTML page → its markdown, metadata and links in one parse, without building a tree. The
// tree path (html.ts) parses the page into a DOM, walks it five times and serializes the content
// for the markdown engine; on 15 KB pages that was most of a scrape's CPU. Here htmlparser2's
// events feed the scan (metadata, links) and, at the same time, the content as the markdown engine
// takes it, cleaned by the same rules (clean.ts, main-content.ts). The result must equal the tree
// path's, so this handles what it can decide while streaming: markdown without the html format or
// include/exclude selectors, on pages with a <body>. onlyMainContent's removal list streams too:
// an element of the list is written as it comes and cut off at its end unless a force-included
// element was seen inside it. Anything else returns null and the tree path runs
// (test/one-pass.test.ts compares both on every fixture).
import { finishedAttributes, FRAME_LINK_TEXT, frameLink, NON_CONTENT, NOT_READ, READ_AS } from './clean.js';
import type { PageScan, Tag } from './dom.js';
import { HtmlBuffer } from './html-buffer.js';
import { Html5Parser } from './html5-parser.js';
import { collectLinks, documentBase, PageUrls } from './links.js';
import { isForceIncluded, isNonMain } from './main-content.js';
import { htmlToMarkdown } from './markdown.js';
import { markdownEngine, type MarkdownEngine } from './markdown-engine.js';
import { extractMetadata } from './metadata.js';
import { esc } from './text.js';
import type { HtmlContent, HtmlOptions } from './html.js';

/** Elements serialized without a closing tag, and parents whose text is written as it is (dom-serializer's HTML mode). */
const VOID = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const RAW_TEXT = new Set(['style', 'script', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'noscript']);

const TEXT_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const escapeText = (text: string) => (/[&<>]/.test(text) ? text.replace(/[&<>]/g, (c) => TEXT_ENTITY[c]) : text);

/** An open element of the reference's non-main list: removed at its end unless it held a force-included one. */
interface NonMainFrame {
  depth: number;
  /** Where its HTML began, and how many of the tables open before it had a row yet (restored when it goes). */
  start: number;
  rowsBefore: number;
}

/** An open table: where it began in `html` and its caption moved out (clean.ts moveCaptions). */
interface OpenTable {
  depth: number;
  start: number;
  caption: string;
}

/**
 * The cleaned inner HTML of the body, built as the page streams by. The body closes at the page's
 * end (html5-parser.ts): its own end tag is one the capture did not open, and is not written.
 */
class Capture {
  readonly html = new HtmlBuffer();
  /** Depth where a subtree removed before `finish` began (form controls, drawings): only its rows count. */
  private unreadAt = -1;
  private readonly tables: OpenTable[] = [];
  /**
   * The open tables that have a row: always the first `tablesWithRows` (a row counts for every
   * table open around it, and a table opened later has none yet). A count, not a flag per table,
   * so a row and a removed element cost the same however many tables are open.
   */
  private tablesWithRows = 0;
  /** Names as written, per depth; undefined for elements opened before the capture (the body, <html>). */
  private readonly written: (string | undefined)[] = [];
  /** Open non-main elements, outermost first (onlyMainContent). */
  private readonly nonMain: NonMainFrame[] = [];
  /**
   * The first `forcedFrames` of `nonMain` hold a force-included element, and stay (a
   * force-included element marks every frame open around it: a count, not a walk of the frames).
   */
  private forcedFrames = 0;
  /** Where an open caption began in `html`, and its depth. */
  private captionStart = -1;
  private captionAt = -1;

  constructor(private readonly onlyMainContent: boolean) {}

  openTag(tag: Tag, depth: number, urls: PageUrls, removeBase64Images: boolean): void {
    const { name } = tag;
    this.written[depth] = '';
    if (this.onlyMainContent) {
      if (isForceIncluded(tag)) this.forcedFrames = this.nonMain.length;
      else if (isNonMain(tag)) this.nonMain.push({ depth, start: this.html.length, rowsBefore: this.tablesWithRows });
    }
    if (this.unreadAt >= 0) {
      if (name === 'tr') this.rowSeen();
      return;
    }
    if (name === 'table') this.tables.push({ depth, start: this.html.length, caption: '' });
    else if (name === 'tr') this.rowSeen();
    if (NOT_READ.has(name)) {
      this.unreadAt = depth;
      return;
    }
    let written = READ_AS[name] ?? name;
    if (name === 'caption' && this.tables.at(-1)?.depth === depth - 1) {
      written = 'p';
      this.captionStart = this.html.length;
      this.captionAt = depth;
    }
    this.written[depth] = written;
    let out = `<${written}`;
    const attribs = finishedAttributes(name, tag.attribs, urls, removeBase64Images);
    for (const key in attribs) out += attribs[key] === '' ? ` ${key}` : ` ${key}="${esc(attribs[key])}"`;
    this.html.append(`${out}>`);
  }

  closeTag(name: string, depth: number): void {
    const written = this.written[depth];
    if (written === undefined) return;
    this.written[depth] = undefined;
    if (this.unreadAt >= 0) {
      if (this.unreadAt === depth) this.unreadAt = -1;
    } else {
      if (!VOID.has(written)) this.html.append(`</${written}>`);
      if (this.captionAt === depth) {
        this.tables.at(-1)!.caption += this.html.cut(this.captionStart);
        this.captionAt = -1;
      }
      if (name === 'table') {
        const hasRow = this.tables.length <= this.tablesWithRows;
        const table = this.tables.pop()!;
        this.tablesWithRows = Math.min(this.tablesWithRows, this.tables.length);
        if (!hasRow) this.html.truncate(table.start);
        else this.html.append(table.caption);
      }
    }
    const frame = this.nonMain.at(-1);
    if (frame?.depth === depth) {
      this.nonMain.pop();
      const forced = this.nonMain.length < this.forcedFrames;
      this.forcedFrames = Math.min(this.forcedFrames, this.nonMain.length);
      if (!forced) {
        this.html.truncate(frame.start);
        // The tables open before it have the rows they had then (its own closed inside it).
        this.tablesWithRows = Math.min(this.tablesWithRows, frame.rowsBefore);
      }
    }
  }

  /** An <iframe> with a source, read as the link the reference writes for it (clean.ts frameLink). */
  frame(link: Record<string, string>, depth: number, urls: PageUrls): void {
    this.openTag({ name: 'a', attribs: link }, depth, urls, false);
    this.text(FRAME_LINK_TEXT, 'a');
    this.closeTag('a', depth);
  }

  text(text: string, parent: string): void {
    if (this.unreadAt >= 0) return;
    this.html.append(RAW_TEXT.has(parent) ? text : escapeText(text));
  }

  directive(data: string): void {
    if (this.unreadAt < 0) this.html.append(`<${data}>`);
  }

  private rowSeen(): void {
    this.tablesWithRows = this.tables.length;
  }
}

/** Whether the one pass can serve these options (the html format and selectors need the tree). */
function eligible(options: HtmlOptions): boolean {
  return !options.formats.has('html') && options.includeTags.length === 0 && options.excludeTags.length === 0;
}

/** The page's content in one parse, or null when the tree path must answer (see the file's top). */
export function convertInOnePass(rawHtml: string, pageUrl: string, options: HtmlOptions, engine: MarkdownEngine = markdownEngine): HtmlContent | null {
  if (!eligible(options)) return null;
  const wantsMarkdown = options.formats.has('markdown');
  const scan: PageScan = { html: null, title: null, base: null, metas: [], linkTags: [], anchors: [], images: [] };
  let urls = new PageUrls(pageUrl);
  // Open elements, by depth (0 = a top-level element), and what the walk needs to know of them.
  const names: string[] = [];
  let nonContentAt = -1;
  let titleAt = -1;
  let bodySeen = false as boolean;
  let body = null as Capture | null;
  let unsupported = false as boolean;
  const parser = new Html5Parser(rawHtml, {
    onopentag(name, attribs) {
      const depth = names.length;
      names.push(name);
      const tag: Tag = { name, attribs };
      switch (name) {
        case 'a': case 'area': if (attribs.href !== undefined) scan.anchors.push(tag); break;
        case 'img': if (attribs.src !== undefined) scan.images.push(tag); break;
        case 'link': if (attribs.href !== undefined) scan.linkTags.push(tag); break;
        case 'meta': scan.metas.push(tag); break;
        case 'title':
          if (scan.title === null) {
            scan.title = '';
            titleAt = depth;
          }
          break;
        case 'html': scan.html ??= tag; break;
        case 'body':
          // The tree path takes the first <body> anywhere; one inside a removed element is beyond this pass.
          if (!bodySeen && nonContentAt >= 0) unsupported = true;
          break;
        case 'base':
          if (attribs.href !== undefined && scan.base === null) {
            // URLs already written were resolved against the page URL.
            if (bodySeen) unsupported = true;
            scan.base = tag;
            urls = new PageUrls(documentBase(scan, pageUrl));
          }
          break;
      }
      if (!wantsMarkdown || unsupported) return;
      if (nonContentAt >= 0) return;
      if (NON_CONTENT.has(name)) {
        nonContentAt = depth;
        const link = name === 'iframe' && body ? frameLink(attribs) : null;
        if (link) body!.frame(link, depth, urls);
        return;
      }
      body?.openTag(tag, depth, urls, options.removeBase64Images);
      if (name === 'math') unsupported = true; // dom-serializer writes MathML in its foreign mode
      if (!bodySeen && name === 'body') {
        bodySeen = true;
        body = new Capture(options.onlyMainContent);
      }
    },
    onclosetag(name) {
      const depth = names.length - 1;
      names.pop();
      if (titleAt === depth) titleAt = -1;
      if (nonContentAt >= 0) {
        if (nonContentAt === depth) nonContentAt = -1;
        return;
      }
      if (!wantsMarkdown) return;
      body?.closeTag(name, depth);
    },
    ontext(text) {
      if (titleAt >= 0) scan.title += text;
      if (!wantsMarkdown || nonContentAt >= 0) return;
      body?.text(text, names[names.length - 1]);
    },
    onprocessinginstruction(_name, data) {
      if (!wantsMarkdown || nonContentAt >= 0) return;
      body?.directive(data);
    },
  }, { xmlMode: false, decodeEntities: true });
  parser.end(rawHtml);

  if (wantsMarkdown && (unsupported || !body)) return null;
  const meta = extractMetadata(scan, urls.base);
  const { links, discovered, images } = collectLinks(scan, urls);
  const markdown = body ? htmlToMarkdown(body.html.toString().trim(), engine) : '';
  return { markdown, html: '', rawHtml, links, images, discovered, meta };
}
