// One HTML page → its markdown, metadata and links in one parse, without building a tree. The
// tree path (html.ts) parses the page into a DOM, walks it five times and serializes the content
// for the markdown engine; on 15 KB pages that was most of a scrape's CPU. Here htmlparser2's
// events feed the scan (metadata, links) and, at the same time, the content as the markdown engine
// takes it, cleaned by the same rules (clean.ts, main-content.ts). The result must equal the tree
// path's, so this handles only what it can decide while streaming: markdown without the html
// format or include/exclude selectors, on pages with a <body>, whose main content is a landmark
// (<main>, [role=main], or a single <article>) or the whole body. Anything else returns null and
// the tree path runs (test/one-pass.test.ts compares both on every fixture).
import { Parser } from 'htmlparser2';
import { finishedAttributes, NON_CONTENT, NOT_READ, READ_AS } from './clean.js';
import type { PageScan, Tag } from './dom.js';
import { collectLinks, documentBase, PageUrls } from './links.js';
import { isBoilerplate } from './main-content.js';
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

/** The cleaned inner HTML of one candidate root (a landmark or the body), built as the page streams by. */
class Capture {
  html = '';
  /** Any text below the root that is not whitespace, before boilerplate goes (main-content.ts hasText). */
  hasText = false;
  open = true;
  /** Depth where a subtree removed before `finish` began (boilerplate): nothing in it counts. */
  private removedAt = -1;
  /** Depth where a subtree removed after `finish` began (form controls, drawings): only its rows count. */
  private unreadAt = -1;
  /** Open tables: where each began in `html`, and whether a row was seen below it. */
  private readonly tables: { start: number; hasRow: boolean }[] = [];
  /** Names as written, per depth below the root (renamed ones included). */
  private readonly written: string[] = [];

  constructor(readonly depth: number, private readonly stripBoilerplate: boolean) {}

  openTag(tag: Tag, depth: number, insideArticle: boolean, urls: PageUrls, removeBase64Images: boolean): void {
    if (this.removedAt >= 0) return;
    const { name } = tag;
    if (this.unreadAt >= 0) {
      if (name === 'tr') this.rowSeen();
      return;
    }
    if (this.stripBoilerplate && (isBoilerplate(tag) || ((name === 'header' || name === 'footer') && !insideArticle))) {
      this.removedAt = depth;
      return;
    }
    if (name === 'table') this.tables.push({ start: this.html.length, hasRow: false });
    else if (name === 'tr') this.rowSeen();
    if (NOT_READ.has(name)) {
      this.unreadAt = depth;
      return;
    }
    const written = READ_AS[name] ?? name;
    this.written[depth] = written;
    let out = `<${written}`;
    const attribs = finishedAttributes(name, tag.attribs, urls, removeBase64Images);
    for (const key in attribs) out += attribs[key] === '' ? ` ${key}` : ` ${key}="${esc(attribs[key])}"`;
    this.html += `${out}>`;
  }

  closeTag(name: string, depth: number): void {
    if (depth === this.depth) {
      this.open = false;
      return;
    }
    if (this.removedAt >= 0 || this.unreadAt >= 0) {
      if (this.removedAt === depth) this.removedAt = -1;
      if (this.unreadAt === depth) this.unreadAt = -1;
      return;
    }
    const written = this.written[depth];
    if (!VOID.has(written)) this.html += `</${written}>`;
    if (name === 'table') {
      const table = this.tables.pop()!;
      if (!table.hasRow) this.html = this.html.slice(0, table.start);
    }
  }

  text(text: string, parent: string): void {
    if (!this.hasText && /\S/.test(text)) this.hasText = true;
    if (this.removedAt >= 0 || this.unreadAt >= 0) return;
    this.html += RAW_TEXT.has(parent) ? text : escapeText(text);
  }

  directive(data: string): void {
    if (this.removedAt < 0 && this.unreadAt < 0) this.html += `<${data}>`;
  }

  private rowSeen(): void {
    for (const table of this.tables) table.hasRow = true;
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
  let bodyAt = -1;
  let bodySeen = false as boolean;
  let articlesOpen = 0;
  let articles = 0;
  let mainSeen = false;
  let main = null as Capture | null;
  let article = null as Capture | null;
  let body = null as Capture | null;
  let unsupported = false as boolean;
  const captures: Capture[] = [];

  const parser = new Parser({
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
        return;
      }
      for (const capture of captures) if (capture.open) capture.openTag(tag, depth, articlesOpen > 0, urls, options.removeBase64Images);
      if (name === 'math') unsupported = true; // dom-serializer writes MathML in its foreign mode
      if (name === 'article') articlesOpen++;
      if (!bodySeen) {
        if (name === 'body') {
          bodySeen = true;
          bodyAt = depth;
          if (!options.onlyMainContent) captures.push((body = new Capture(depth, false)));
        }
        return;
      }
      if (bodyAt < 0 || !options.onlyMainContent) return;
      // Landmarks below the body: the first <main> or [role=main], and every <article>.
      if (!mainSeen && (name === 'main' || attribs.role === 'main')) {
        mainSeen = true;
        captures.push((main = new Capture(depth, true)));
      }
      if (name === 'article' && ++articles === 1 && !main?.open) {
        // Inside the main landmark it is not needed: if it has text, so has the landmark, which wins.
        captures.push((article = new Capture(depth, true)));
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
      if (name === 'article') articlesOpen--;
      if (bodyAt === depth) bodyAt = -1;
      for (const capture of captures) if (capture.open) capture.closeTag(name, depth);
    },
    ontext(text) {
      if (titleAt >= 0) scan.title += text;
      if (!wantsMarkdown || nonContentAt >= 0) return;
      const parent = names[names.length - 1];
      for (const capture of captures) if (capture.open) capture.text(text, parent);
    },
    onprocessinginstruction(_name, data) {
      if (!wantsMarkdown || nonContentAt >= 0) return;
      for (const capture of captures) if (capture.open) capture.directive(data);
    },
  }, { xmlMode: false, decodeEntities: true });
  parser.end(rawHtml);

  let content: Capture | null = null;
  if (wantsMarkdown) {
    if (unsupported || !bodySeen) return null;
    if (!options.onlyMainContent) content = body;
    else if (main?.hasText) content = main;
    else if (articles === 1 && article?.hasText) content = article;
    // No landmark: the densest block is chosen on the tree.
    if (!content) return null;
  }
  const meta = extractMetadata(scan, urls.base);
  const { links, discovered, images } = collectLinks(scan, urls);
  const markdown = content ? htmlToMarkdown(content.html.trim(), engine) : '';
  return { markdown, html: '', rawHtml, links, images, discovered, meta };
}
