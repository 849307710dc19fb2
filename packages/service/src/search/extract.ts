/*
 * A scraped page document → what the index keeps (page.ts). The HTML (rawHtml, else html)
 * is read when the document has it; otherwise metadata and markdown only.
 *
 * - Key and URL: <link rel="canonical">, else og:url (metadata ogUrl), else metadata.url,
 *   so query variants of one page are one result.
 * - Publication date (news): article:published_time, og:article:published_time,
 *   datePublished, pubdate, date, dc.date (meta tags or the same metadata keys); else, on a
 *   page whose og:type is "article", the first <time datetime> of the page (without HTML:
 *   the markdown date below). The demo site's
 *   blog posts are such articles (og:type article, <time datetime> in the byline).
 * - Page date (time filters of web results): the publication date, else article:modified_time
 *   / og:updated_time / last-modified, else the first <time datetime>, else (markdown only)
 *   the first YYYY-MM-DD in the first 600 characters.
 * - Images: every <img src> (resolved; data: URIs kept) with alt text; width and height from
 *   the attributes, or decoded from a data: URI's header. Without HTML, markdown images
 *   ![alt](src) with unknown size.
 */
import { load, type CheerioAPI } from 'cheerio';
import type { PageDocument } from '../core/scrape.js';
import { dataUriSize, dimension } from './image-size.js';
import type { IndexedImage, IndexedPage } from './page.js';

const PUBLISHED_KEYS = ['article:published_time', 'og:article:published_time', 'datepublished', 'pubdate', 'publishdate', 'date', 'dc.date', 'dc.date.issued'];
const MODIFIED_KEYS = ['article:modified_time', 'og:updated_time', 'last-modified', 'datemodified', 'dc.date.modified'];

/** A date string as ISO 8601 (YYYY-MM-DD kept as is); undefined when it does not parse. */
export function normalizeDate(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ? undefined : v;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** Epoch ms of an indexed date (plain dates are UTC midnight). */
export function dateMs(date: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T00:00:00Z` : date);
}

function metaValue(meta: Record<string, unknown>, keys: string[]): string | undefined {
  const lower = new Map(Object.entries(meta).map(([k, v]) => [k.toLowerCase(), v]));
  for (const key of keys) {
    const found = normalizeDate(lower.get(key));
    if (found) return found;
  }
  return undefined;
}

function resolve(src: string, base: string): string | undefined {
  if (src.startsWith('data:')) return src;
  try {
    const u = new URL(src, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function image(url: string, alt: string, width?: number, height?: number): IndexedImage {
  const size = width && height ? { width, height } : url.startsWith('data:') ? dataUriSize(url) : undefined;
  return { url, alt, ...(size ? { width: size.width, height: size.height } : {}) };
}

interface HtmlFacts {
  canonical?: string;
  title?: string;
  description?: string;
  text?: string;
  meta: Record<string, string>;
  firstTime?: string;
  images: IndexedImage[];
}

function readHtml($: CheerioAPI, base: string): HtmlFacts {
  const meta: Record<string, string> = {};
  $('meta').each((_, el) => {
    const key = (el.attribs.name ?? el.attribs.property ?? el.attribs.itemprop)?.trim().toLowerCase();
    if (key && el.attribs.content !== undefined && !(key in meta)) meta[key] = el.attribs.content;
  });
  $('[itemprop="datePublished"]').each((_, el) => {
    meta.datepublished ??= el.attribs.datetime ?? el.attribs.content ?? $(el).text();
  });
  const images: IndexedImage[] = [];
  $('img[src]').each((_, el) => {
    const url = resolve(el.attribs.src, base);
    if (url) images.push(image(url, (el.attribs.alt ?? '').trim(), dimension(el.attribs.width), dimension(el.attribs.height)));
  });
  const canonicalHref = $('link[rel~="canonical"]').first().attr('href');
  const main = $('main').first();
  const textRoot = main.length > 0 ? main : $('body');
  textRoot.find('script, style, noscript, template').remove();
  return {
    canonical: canonicalHref ? resolve(canonicalHref, base) : undefined,
    title: $('title').first().text().trim() || undefined,
    description: meta.description,
    text: textRoot.text().replace(/\s+/g, ' ').trim() || undefined,
    meta,
    firstTime: normalizeDate($('time[datetime]').first().attr('datetime')),
    images,
  };
}

function markdownImages(markdown: string, base: string): IndexedImage[] {
  const out: IndexedImage[] = [];
  for (const m of markdown.matchAll(/!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const url = resolve(m[2], base);
    if (url) out.push(image(url, m[1].trim()));
  }
  return out;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The index entry of a document; undefined for failed pages (status >= 400) and empty ones. */
export function pageFromDocument(document: PageDocument, seq: number): IndexedPage | undefined {
  const md = document.metadata;
  if (!md || (typeof md.statusCode === 'number' && md.statusCode >= 400) || md.error) return undefined;
  const pageUrl = str(md.url) ?? str(md.sourceURL);
  if (!pageUrl || !resolve(pageUrl, pageUrl)) return undefined;
  const html = document.rawHtml ?? document.html;
  const facts: HtmlFacts = html ? readHtml(load(html), pageUrl) : { meta: {}, images: [] };
  const meta: Record<string, unknown> = { ...facts.meta, ...md };

  const url = facts.canonical ?? resolve(str(md.ogUrl) ?? '', pageUrl) ?? pageUrl;
  const markdown = document.markdown ?? '';
  const text = (markdown.trim() !== '' ? markdown : facts.text ?? '').trim();
  const title = str(md.title) ?? facts.title ?? str(md.ogTitle) ?? '';
  if (!text && !title) return undefined;

  const ogType = str(meta['og:type'])?.toLowerCase();
  const markdownDate = html ? undefined : normalizeDate(/\b(\d{4}-\d{2}-\d{2})\b/.exec(markdown.slice(0, 600))?.[1]);
  const publishedAt = metaValue(meta, PUBLISHED_KEYS) ?? (ogType === 'article' ? facts.firstTime ?? markdownDate : undefined);
  const date = publishedAt ?? metaValue(meta, MODIFIED_KEYS) ?? facts.firstTime ?? markdownDate;
  const keywords = (str(md.keywords) ?? str(facts.meta.keywords) ?? '').split(',').map((k) => k.trim().toLowerCase()).filter(Boolean);
  const leadImage = resolve(str(md.ogImage) ?? str(facts.meta['og:image']) ?? '', pageUrl);

  return {
    key: url,
    url,
    title,
    description: str(md.description) ?? facts.description ?? str(md.ogDescription) ?? '',
    text,
    contentType: str(md.contentType) ?? (html ? 'text/html' : ''),
    ...(str(md.language) ? { language: str(md.language) } : {}),
    keywords,
    ...(publishedAt ? { publishedAt } : {}),
    ...(date ? { date } : {}),
    images: html ? facts.images : markdownImages(markdown, pageUrl),
    ...(leadImage ? { leadImage } : {}),
    metaNames: Object.keys(meta).map((k) => k.toLowerCase()),
    seq,
  };
}
