/*
 * Which indexed pages a search may return: query operators, domain lists, categories and
 * time filters. Rules:
 * - site:host[/path] — the host or a subdomain of it (a port in the operator must match too),
 *   and the URL path under /path when given. Several site: operators are alternatives.
 * - includeDomains/excludeDomains — the hostname or a subdomain of it.
 * - filetype:ext — the URL path ends in .ext, or the content type is the one of ext
 *   (html/htm, pdf, txt, xml, json, csv, md). Several are alternatives.
 * - inurl:w — w appears in the decoded, lowercased URL. intitle:w — every word of w is a
 *   word of the title ("quoted" values must appear as a phrase).
 * - "phrase" — whole words in sequence in title, description or text; -word and -"phrase"
 *   drop pages having them anywhere (URL included).
 * - imagesize:WxH / larger:WxH — only pages with an image of exactly / at least that size.
 * - Time filters — the page date (publication, else modification, else first <time>) within
 *   the bounds; undated pages are left out while a time filter is set.
 */
import { categoryOf, type Category } from './categories.js';
import { dateMs } from './extract.js';
import type { IndexedImage, IndexedPage } from './page.js';
import type { ParsedQuery } from './query.js';
import type { TimeFilter } from './tbs.js';
import { containsPhrase, normalized, tokenize, urlText } from './text.js';

export interface PageFilterInput {
  query: ParsedQuery;
  includeDomains?: string[];
  excludeDomains?: string[];
  categories: Category[];
  time: TimeFilter;
}

const FILETYPE_MIME: Record<string, RegExp> = {
  html: /text\/html|xhtml/i, htm: /text\/html|xhtml/i, pdf: /application\/pdf/i, txt: /text\/plain/i,
  xml: /[/+]xml/i, json: /[/+]json/i, csv: /text\/csv/i, md: /text\/markdown/i,
};

function hostMatches(host: string, domain: string): boolean {
  const d = domain.toLowerCase();
  return host === d || host.endsWith(`.${d}`);
}

function siteMatches(url: URL, site: string): boolean {
  const slash = site.indexOf('/');
  const hostPart = slash < 0 ? site : site.slice(0, slash);
  const path = slash < 0 ? '' : site.slice(slash);
  const hostOk = hostPart.includes(':') ? url.host.toLowerCase() === hostPart : hostMatches(url.hostname.toLowerCase(), hostPart);
  if (!hostOk) return false;
  if (!path) return true;
  return url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
}

function filetypeMatches(page: IndexedPage, url: URL, type: string): boolean {
  if (url.pathname.toLowerCase().endsWith(`.${type}`)) return true;
  const mime = FILETYPE_MIME[type];
  return mime !== undefined && mime.test(page.contentType);
}

function titleHas(page: IndexedPage, value: string): boolean {
  const title = normalized(page.title);
  if (value.includes(' ')) return containsPhrase(title, value);
  const words = tokenize(value);
  return words.length > 0 && words.every((w) => title.includes(` ${w} `));
}

export function imageMatches(image: IndexedImage, query: ParsedQuery): boolean {
  const { imagesize, larger } = query;
  if (!imagesize && !larger) return true;
  if (image.width === undefined || image.height === undefined) return false;
  if (imagesize && (image.width !== imagesize.width || image.height !== imagesize.height)) return false;
  if (larger && (image.width < larger.width || image.height < larger.height)) return false;
  return true;
}

function decodedUrl(url: string): string {
  try {
    return decodeURIComponent(url).toLowerCase();
  } catch {
    return url.toLowerCase();
  }
}

/** Returns the category label (or null) for a page that passes, undefined for one that does not. */
export function passes(page: IndexedPage, f: PageFilterInput): Category | null | undefined {
  let url: URL;
  try {
    url = new URL(page.url);
  } catch {
    return undefined;
  }
  const q = f.query;
  const host = url.hostname.toLowerCase();
  if (q.sites.length > 0 && !q.sites.some((s) => siteMatches(url, s))) return undefined;
  if (q.excludedSites.some((s) => siteMatches(url, s))) return undefined;
  if (f.includeDomains?.length && !f.includeDomains.some((d) => hostMatches(host, d))) return undefined;
  if (f.excludeDomains?.some((d) => hostMatches(host, d))) return undefined;
  if (q.filetypes.length > 0 && !q.filetypes.some((t) => filetypeMatches(page, url, t))) return undefined;
  if (q.excludedFiletypes.some((t) => filetypeMatches(page, url, t))) return undefined;

  const fullUrl = decodedUrl(page.url);
  if (!q.inurl.every((w) => fullUrl.includes(w))) return undefined;
  if (q.excludedInurl.some((w) => fullUrl.includes(w))) return undefined;
  if (!q.intitle.every((w) => titleHas(page, w))) return undefined;
  if (q.excludedIntitle.some((w) => titleHas(page, w))) return undefined;

  if (q.phrases.length > 0 || q.excludedPhrases.length > 0 || q.excludedTerms.length > 0) {
    const body = normalized(`${page.title} ${page.description} ${page.text}`);
    if (!q.phrases.every((p) => containsPhrase(body, p))) return undefined;
    const anywhere = `${body}${normalized(urlText(page.url))}`;
    if (q.excludedPhrases.some((p) => containsPhrase(anywhere, p))) return undefined;
    if (q.excludedTerms.some((t) => tokenize(t).some((w) => anywhere.includes(` ${w} `)))) return undefined;
  }

  if ((q.imagesize || q.larger) && !page.images.some((img) => imageMatches(img, q))) return undefined;

  const { from, to } = f.time;
  if (from !== undefined || to !== undefined) {
    if (!page.date) return undefined;
    const t = dateMs(page.date);
    if (Number.isNaN(t) || (from !== undefined && t < from) || (to !== undefined && t > to)) return undefined;
  }

  if (f.categories.length === 0) return null;
  return categoryOf(page, f.categories) ?? undefined;
}
