// Rendered HTML → page document for the browser engine. Uses the HTTP engine's metadata
// and link extraction (service/src/scrape) so both engines describe pages the same way.
// TODO(scrape): switch to the HTTP engine's html→document function once it lands, so the
// markdown/html cleaning is shared too; until then a small equivalent lives here.
import { load } from 'cheerio';
import TurndownService from 'turndown';
import type { PageDocument } from '../core/contract.js';
import { collectLinks, documentBase } from '../scrape/links.js';
import { extractMetadata } from '../scrape/metadata.js';

export interface ConvertInput {
  html: string;
  /** Final URL after redirects and navigation. */
  url: string;
  sourceURL: string;
  statusCode: number;
  contentType?: string;
  scrapeId: string;
  /** Which plain formats were requested (markdown, html, rawHtml, links, images). */
  formats: ReadonlySet<string>;
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
}

export interface Converted {
  document: PageDocument;
  discoveredLinks: string[];
}

const NON_CONTENT = 'script, style, noscript, template, iframe, svg, canvas, meta, link';
const CHROME = 'header, footer, nav, aside, [role=navigation], [role=banner], [role=contentinfo], .sidebar, #sidebar, .nav, .menu, .cookie, .ads, .ad';

export function convertRendered(input: ConvertInput): Converted {
  const $ = load(input.html);
  const base = documentBase($, input.url);
  const links = collectLinks($, base);
  const metadata = extractMetadata($, base);
  const doc: PageDocument = {
    metadata: {
      ...metadata,
      sourceURL: input.sourceURL,
      url: input.url,
      statusCode: input.statusCode,
      ...(input.contentType ? { contentType: input.contentType } : {}),
      scrapeId: input.scrapeId,
    } as PageDocument['metadata'],
  };
  if (input.formats.has('rawHtml')) doc.rawHtml = input.html;
  if (input.formats.has('links')) doc.links = links.links;
  if (input.formats.has('images')) doc.images = links.images;
  if (input.formats.has('markdown') || input.formats.has('html')) {
    const $c = load(input.html);
    $c(NON_CONTENT).remove();
    for (const sel of input.excludeTags) $c(sel).remove();
    if (input.onlyMainContent) $c(CHROME).remove();
    let root = $c('body');
    if (input.includeTags.length) {
      const picked = input.includeTags.map((sel) => $c(sel).toArray().map((el) => $c.html(el)).join('\n')).join('\n');
      root = load(`<body>${picked}</body>`)('body');
    } else if (input.onlyMainContent && $c('main').length) {
      root = $c('main').first();
    }
    const html = (root.html() ?? '').trim();
    if (input.formats.has('html')) doc.html = html;
    if (input.formats.has('markdown')) doc.markdown = markdownOf(html);
  }
  return { document: doc, discoveredLinks: links.discovered };
}

let turndown: TurndownService | undefined;
function markdownOf(html: string): string {
  turndown ??= new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  return turndown.turndown(html).trim();
}
