// The page's markdown with no parse in JavaScript: native-prescan.ts reads the raw page's tags in
// one forward scan (metadata, links, and the body's source with what the cleaning removes cut
// out) and one call to mdream's native engine converts that source, root-relative URLs made
// absolute by its `origin`. About 0.3 ms on a 15 KB page, of which mdream 0.15, where the one
// pass takes 0.75 (bench/native-pass-cost.ts). It answers only where that equals the tree path's result (html.ts
// convertOnTree): markdown without the html format or selectors, on pages the prescan finds
// plain enough; else, and where the native engine is not loaded, it returns null and the one
// pass or the tree answers. mdream's own filter could drop the removal list too, but it also
// drops hidden and positioned elements and spaces text where an element was, so it is not used.
import { collectLinks, PageUrls } from './links.js';
import { tidyMarkdown } from './markdown.js';
import { markdownEngine, type MarkdownEngine } from './markdown-engine.js';
import { extractMetadata } from './metadata.js';
import { prescan } from './native-prescan.js';
import type { HtmlContent, HtmlOptions } from './html.js';

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
  const pre = prescan(rawHtml, {
    origin,
    resolve: (url) => urls.href(url.trim()),
    plainPathsAsWritten: urls.href('/') === `${origin}/`,
    onlyMainContent: options.onlyMainContent,
    removeBase64Images: options.removeBase64Images,
  });
  if (!pre) return null;
  const { scan, content } = pre;
  const body = content.trim();
  const markdown = body ? tidyMarkdown(convertPage(body, { origin })) : '';
  const meta = extractMetadata(scan, pageUrl);
  const { links, discovered, images } = collectLinks(scan, urls);
  return { markdown, html: '', rawHtml, links, images, discovered, meta };
}
