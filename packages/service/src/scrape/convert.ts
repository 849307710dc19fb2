// A fetched response → page document: HTML (in a conversion worker thread when the engine has a
// pool), PDF, text, or an empty document for other binaries.
import { STATUS_CODES } from 'node:http';
import type { PageDocument, PageMetadata } from '../core/scrape.js';
import type { ConvertPool } from './convert-pool.js';
import type { FetchedPage } from './fetch.js';
import { convertHtml, htmlOptions, type HtmlContent } from './html.js';
import type { NormalizedOptions } from './options.js';
import { isPdf, parsePdf } from './pdf.js';
import { onAbort, type Cancellation } from './scrape-abort.js';
import { decodeText, esc } from './text.js';

export interface Converted {
  document: PageDocument;
  discoveredLinks: string[];
}

function isHtml(contentType: string, text: string): boolean {
  if (/html/i.test(contentType)) return true;
  if (contentType && !/^text\/plain/i.test(contentType)) return false;
  return /^\s*(<!doctype html|<html|<head|<body)/i.test(text);
}

function isText(contentType: string): boolean {
  return /^text\//i.test(contentType) || /[/+](json|xml|javascript|csv)/i.test(contentType);
}

async function convertPdf(page: FetchedPage, options: NormalizedOptions, signal: Cancellation): Promise<HtmlContent> {
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

/** Rejects as soon as the signal aborts (pdf.js and thread work cannot be interrupted, only abandoned). */
function abortable<T>(promise: Promise<T>, signal: Cancellation): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(signal.reason as Error));
    promise.then(
      (value) => {
        stop();
        resolve(value);
      },
      (err: unknown) => {
        stop();
        reject(err as Error);
      },
    );
  });
}

export async function convertPage(
  page: FetchedPage,
  ctx: { sourceURL: string; scrapeId: string; signal: Cancellation },
  options: NormalizedOptions,
  pool?: ConvertPool,
): Promise<Converted> {
  let content: HtmlContent;
  let creditsUsed = 1;
  if (isPdf(page.contentType, page.body)) {
    content = await convertPdf(page, options, ctx.signal);
    // Parsed PDFs are priced per page, as on the hosted service.
    if (options.pdf && typeof content.meta.numPages === 'number') creditsUsed = Math.max(1, content.meta.numPages);
  } else {
    const text = decodeText(page.body, page.contentType);
    if (isHtml(page.contentType, text)) {
      content = pool
        ? await abortable(pool.convert(text, page.url, htmlOptions(options)), ctx.signal)
        : convertHtml(text, page.url, options);
    } else if (isText(page.contentType) || !page.contentType) {
      content = { markdown: text, html: `<pre>${esc(text)}</pre>`, rawHtml: text, links: [], images: [], discovered: [], meta: {} };
    } else {
      content = { markdown: '', html: '', rawHtml: '', links: [], images: [], discovered: [], meta: {} };
    }
  }

  // The conversion's own metadata object (made for this page) completed in place: on Node 20, a
  // spread into a literal that adds members costs V8 a new hidden class each time (about 6 µs).
  const metadata = content.meta as PageMetadata;
  metadata.sourceURL = ctx.sourceURL;
  metadata.url = page.url;
  metadata.statusCode = page.status;
  if (page.contentType) metadata.contentType = page.contentType;
  metadata.scrapeId = ctx.scrapeId;
  metadata.proxyUsed = 'basic';
  metadata.creditsUsed = creditsUsed;
  metadata.cacheState = 'miss';
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
