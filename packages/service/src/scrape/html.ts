// One HTML page → its content for the page document. Plain pages go to mdream's native engine
// whole (native-pass.ts), most others through one-pass.ts (one parse, no tree). The rest, and the
// html format, take the tree path: the page is parsed once (cheerio over htmlparser2, about a
// third of parse5's CPU), metadata and links are read first in one walk, then the same tree is
// cleaned for the html format, and its serialization (without form controls) is what the
// markdown is made from. Pure and synchronous, so it runs as well in a
// conversion worker thread as in the event loop.
import { load } from 'cheerio';
import { contentRoot, prepareForMarkdown, html as serialize } from './clean.js';
import { scanPage } from './dom.js';
import { parseHtml5Document } from './html5-parser.js';
import { collectLinks, documentBase, PageUrls } from './links.js';
import { htmlToMarkdown } from './markdown.js';
import { markdownEngine, type MarkdownEngine } from './markdown-engine.js';
import { extractMetadata } from './metadata.js';
import { convertNatively } from './native-pass.js';
import { convertInOnePass } from './one-pass.js';
import type { NormalizedOptions } from './options.js';

export interface HtmlContent {
  markdown: string;
  html: string;
  rawHtml: string;
  links: string[];
  images: string[];
  discovered: string[];
  meta: Record<string, unknown>;
}

/** The options conversion reads (a structured-clonable subset, sent to worker threads). */
export type HtmlOptions = Pick<NormalizedOptions, 'formats' | 'onlyMainContent' | 'includeTags' | 'excludeTags' | 'removeBase64Images'>;

export function htmlOptions(options: NormalizedOptions): HtmlOptions {
  const { formats, onlyMainContent, includeTags, excludeTags, removeBase64Images } = options;
  return { formats, onlyMainContent, includeTags, excludeTags, removeBase64Images };
}

/** Serialization in HTML mode (void elements, entities), as the page was parsed (html5-parser.ts). */
const HTML_PARSER = { xml: { xmlMode: false, decodeEntities: true } };

/** `engine`: the process's own unless given (the engine comparison converts with each). */
export function convertHtml(rawHtml: string, pageUrl: string, options: HtmlOptions, engine: MarkdownEngine = markdownEngine): HtmlContent {
  return convertNatively(rawHtml, pageUrl, options, engine)
    ?? convertInOnePass(rawHtml, pageUrl, options, engine)
    ?? convertOnTree(rawHtml, pageUrl, options, engine);
}

/** The tree path, for every page and option (one-pass.ts must give the same where it answers). */
export function convertOnTree(rawHtml: string, pageUrl: string, options: HtmlOptions, engine: MarkdownEngine = markdownEngine): HtmlContent {
  const $ = load(parseHtml5Document(rawHtml), HTML_PARSER);
  const scan = scanPage($.root()[0]);
  const base = documentBase(scan, pageUrl);
  const meta = extractMetadata(scan, base);
  const urls = new PageUrls(base);
  const { links, discovered, images } = collectLinks(scan, urls);
  const wantsContent = options.formats.has('markdown') || options.formats.has('html');
  const root = wantsContent ? contentRoot($, scan.body, urls, options) : null;
  const html = root && options.formats.has('html') ? serialize(root) : '';
  let markdown = '';
  if (root && options.formats.has('markdown')) {
    prepareForMarkdown(root);
    markdown = htmlToMarkdown(serialize(root), engine);
  }
  return { markdown, html, rawHtml, links, images, discovered, meta };
}
