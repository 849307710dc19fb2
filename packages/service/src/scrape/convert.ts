// A fetched response → page document. HTML is parsed once with cheerio: metadata and links are
// read first, then the same tree is cleaned for the html format, which markdown is made from.
import { STATUS_CODES } from 'node:http';
import { load } from 'cheerio';
import type { PageDocument, PageMetadata } from '../core/scrape.js';
import { contentHtml } from './clean.js';
import type { FetchedPage } from './fetch.js';
import { collectLinks, documentBase } from './links.js';
import { htmlToMarkdown } from './markdown.js';
import { extractMetadata } from './metadata.js';
import type { NormalizedOptions } from './options.js';
import { isPdf, parsePdf } from './pdf.js';
import { decodeText, esc } from './text.js';

export interface Converted {
  document: PageDocument;
  discoveredLinks: string[];
}

interface Content {
  markdown: string;
  html: string;
  rawHtml: string;
  links: string[];
  images: string[];
  discovered: string[];
  meta: Record<string, unknown>;
}

function isHtml(contentType: string, text: string): boolean {
  if (/html/i.test(contentType)) return true;
  if (contentType && !/^text\/plain/i.test(contentType)) return false;
  return /^\s*(<!doctype html|<html|<head|<body)/i.test(text);
}

function isText(contentType: string): boolean {
  return /^text\//i.test(contentType) || /[/+](json|xml|javascript|csv)/i.test(contentType);
}

export function convertHtml(rawHtml: string, pageUrl: string, options: NormalizedOptions): Content {
  const $ = load(rawHtml);
  const base = documentBase($, pageUrl);
  const meta = extractMetadata($, base);
  const { links, discovered, images } = collectLinks($, base);
  const wantsContent = options.formats.has('markdown') || options.formats.has('html');
  const html = wantsContent ? contentHtml($, base, options) : '';
  const markdown = options.formats.has('markdown') ? htmlToMarkdown(html) : '';
  return { markdown, html, rawHtml, links, images, discovered, meta };
}

async function convertPdf(page: FetchedPage, options: NormalizedOptions, signal: AbortSignal): Promise<Content> {
  const empty = { rawHtml: '', links: [], images: [], discovered: [] };
  if (!options.pdf) {
    const encoded = page.body.toString('base64');
    return { ...empty, markdown: encoded, html: encoded, meta: {} };
  }
  const parsed = await abortable(parsePdf(page.body, options.pdf.maxPages), signal);
  return {
    ...empty,
    markdown: parsed.markdown,
    html: parsed.html,
    meta: { ...(parsed.title ? { title: parsed.title } : {}), numPages: parsed.numPages },
  };
}

/** Rejects as soon as the signal aborts (pdf.js work cannot be interrupted, only abandoned). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}

export async function convertPage(
  page: FetchedPage,
  ctx: { sourceURL: string; scrapeId: string; signal: AbortSignal },
  options: NormalizedOptions,
): Promise<Converted> {
  let content: Content;
  let creditsUsed = 1;
  if (isPdf(page.contentType, page.body)) {
    content = await convertPdf(page, options, ctx.signal);
    // Parsed PDFs are priced per page, as on the hosted service.
    if (options.pdf && typeof content.meta.numPages === 'number') creditsUsed = Math.max(1, content.meta.numPages);
  } else {
    const text = decodeText(page.body, page.contentType);
    if (isHtml(page.contentType, text)) {
      content = convertHtml(text, page.url, options);
    } else if (isText(page.contentType) || !page.contentType) {
      content = { markdown: text, html: `<pre>${esc(text)}</pre>`, rawHtml: text, links: [], images: [], discovered: [], meta: {} };
    } else {
      content = { markdown: '', html: '', rawHtml: '', links: [], images: [], discovered: [], meta: {} };
    }
  }

  const metadata: PageMetadata = {
    ...content.meta,
    sourceURL: ctx.sourceURL,
    url: page.url,
    statusCode: page.status,
    ...(page.contentType ? { contentType: page.contentType } : {}),
    scrapeId: ctx.scrapeId,
    proxyUsed: 'basic',
    creditsUsed,
    cacheState: 'miss',
  };
  if (page.status < 200 || page.status >= 300) metadata.error = STATUS_CODES[page.status] ?? `HTTP ${page.status}`;

  const document: PageDocument = { metadata };
  const f = options.formats;
  if (f.has('markdown')) document.markdown = content.markdown;
  if (f.has('html')) document.html = content.html;
  if (f.has('rawHtml')) document.rawHtml = content.rawHtml;
  if (f.has('links')) document.links = content.links;
  if (f.has('images')) document.images = content.images;
  return { document, discoveredLinks: content.discovered };
}
