// The page's content in one call to mdream's native engine: it parses the raw page, drops what
// onlyMainContent removes (its filter, given the reference's removal list) and writes the
// markdown, at about a third of the one pass's CPU on 15 KB pages (bench/native-pass-cost.ts).
// It answers only where that equals the tree path's result (html.ts convertOnTree): markdown
// without the html format or selectors, on pages native-prescan.ts finds plain enough; else, and
// where the native engine is not loaded, it returns null and the one pass or the tree answers.
import { collectLinks, PageUrls } from './links.js';
import { NON_MAIN_SELECTORS } from './main-content.js';
import { tidyMarkdown } from './markdown.js';
import { markdownEngine, type MarkdownEngine } from './markdown-engine.js';
import { extractMetadata } from './metadata.js';
import { prescan } from './native-prescan.js';
import type { HtmlContent, HtmlOptions } from './html.js';

/** The head holds nothing the content reads; mdream would write its title. */
const EXCLUDE_WHOLE_BODY = ['head'];
const EXCLUDE_MAIN_CONTENT = [...NON_MAIN_SELECTORS, 'head'];

export function convertNatively(rawHtml: string, pageUrl: string, options: HtmlOptions, engine: MarkdownEngine = markdownEngine): HtmlContent | null {
  const convertPage = engine.convertPage;
  if (!convertPage || !options.formats.has('markdown') || options.formats.has('html')) return null;
  if (options.includeTags.length > 0 || options.excludeTags.length > 0) return null;
  let origin: string;
  try {
    origin = new URL(pageUrl).origin;
  } catch {
    return null;
  }
  // An opaque origin ('null') resolves nothing the way the tree path does.
  if (origin === 'null') return null;
  const urls = new PageUrls(pageUrl);
  const scan = prescan(rawHtml, {
    origin,
    resolve: (url) => urls.href(url.trim()),
    onlyMainContent: options.onlyMainContent,
    removeBase64Images: options.removeBase64Images,
  });
  if (!scan) return null;
  const exclude = options.onlyMainContent ? EXCLUDE_MAIN_CONTENT : EXCLUDE_WHOLE_BODY;
  const markdown = tidyMarkdown(convertPage(rawHtml, { origin, exclude }));
  const meta = extractMetadata(scan, pageUrl);
  const { links, discovered, images } = collectLinks(scan, urls);
  return { markdown, html: '', rawHtml, links, images, discovered, meta };
}
