// Uploaded files → a page document: PDF with unpdf (pdf.js), DOCX with mammoth (to HTML),
// HTML with the scrape module's markdown converter, text as it is. Other kinds are
// refused with 415 naming the kinds taken.
import { load, type Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { PARSE_FILE_KINDS } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import { prepareForMarkdown } from '../scrape/clean.js';
import { htmlToMarkdown } from '../scrape/markdown.js';
import { isPdf, parsePdf } from '../scrape/pdf.js';
import { esc } from '../scrape/text.js';

export type FileKind = 'pdf' | 'docx' | 'html' | 'text';

export interface ParsedFile {
  kind: FileKind;
  markdown: string;
  html: string;
  rawHtml: string;
  links: string[];
  title?: string;
  numPages?: number;
}

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const TAKES = `${PARSE_FILE_KINDS.slice(0, -1).join(', ')} and ${PARSE_FILE_KINDS.at(-1)} (plain or markdown) files`;

export function unsupportedFile(what: string): HttpError {
  return new HttpError(415, `Unsupported file type ${what}: POST /v2/parse takes ${TAKES}`, {
    code: 'UNSUPPORTED_FILE_TYPE',
    details: { supported: [...PARSE_FILE_KINDS] },
  });
}

function extOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

function looksLikeText(bytes: Buffer): boolean {
  const sample = bytes.subarray(0, 8192);
  if (sample.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample.length === bytes.length ? sample : sample.subarray(0, lastCompleteUtf8(sample)));
    return true;
  } catch {
    return false;
  }
}

/** Length of a sample without a UTF-8 sequence cut at its end. */
function lastCompleteUtf8(sample: Buffer): number {
  let i = sample.length;
  let back = 0;
  while (i > 0 && back < 4 && (sample[i - 1]! & 0xc0) === 0x80) { i--; back++; }
  return i > 0 && sample[i - 1]! >= 0xc0 ? i - 1 : sample.length;
}

/** The file's kind from its declared type, its name and its first bytes; 415 for anything else. */
export function detectKind(bytes: Buffer, filename: string, contentType: string): FileKind {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const ext = extOf(filename);
  if (isPdf(type, bytes) || ext === 'pdf') return 'pdf';
  const zip = bytes.subarray(0, 4).toString('latin1') === 'PK\x03\x04';
  if (type === DOCX_TYPE || ext === 'docx') {
    if (!zip) throw new HttpError(400, `The file ${filename || '(unnamed)'} is declared as DOCX but is not a DOCX (zip) file`, { code: 'INVALID_FILE' });
    return 'docx';
  }
  if (type === 'text/html' || type === 'application/xhtml+xml' || ext === 'html' || ext === 'htm' || ext === 'xhtml') return 'html';
  if (type.startsWith('text/') || ['txt', 'md', 'markdown', 'text'].includes(ext)) return 'text';
  if ((type === '' || type === 'application/octet-stream') && !zip && looksLikeText(bytes)) {
    return /^\s*(<!doctype html|<html|<head|<body)/i.test(bytes.subarray(0, 512).toString('utf8')) ? 'html' : 'text';
  }
  throw unsupportedFile(`"${type || 'unknown'}"${filename ? ` (${filename})` : ''}`);
}

function fromHtml(kind: FileKind, rawHtml: string, extraTitle?: string): ParsedFile {
  const $ = load(rawHtml);
  const title = $('title').first().text().trim() || $('h1').first().text().trim() || extraTitle;
  $('script, style, noscript, template').remove();
  const links = [...new Set($('a[href]').map((_, a) => $(a).attr('href') ?? '').get().filter((h) => /^https?:\/\//i.test(h)))];
  const content: Cheerio<AnyNode> = $('body').length > 0 ? $('body') : $.root();
  const html = (content.html() ?? '').trim();
  prepareForMarkdown(content);
  return { kind, markdown: htmlToMarkdown((content.html() ?? '').trim()), html, rawHtml, links, ...(title ? { title } : {}) };
}

export async function convertFile(bytes: Buffer, kind: FileKind, opts: { pdfParser: boolean; signal?: AbortSignal }): Promise<ParsedFile> {
  switch (kind) {
    case 'pdf': {
      if (!opts.pdfParser) {
        // Without the pdf parser the file comes back base64-encoded, as a scrape does.
        const encoded = bytes.toString('base64');
        return { kind, markdown: encoded, html: encoded, rawHtml: '', links: [] };
      }
      let parsed;
      try {
        parsed = await parsePdf(bytes);
      } catch (err) {
        throw new HttpError(400, `The PDF file could not be read: ${(err as Error).message}`, { code: 'INVALID_FILE' });
      }
      return { kind, markdown: parsed.markdown, html: parsed.html, rawHtml: '', links: [], numPages: parsed.numPages, ...(parsed.title ? { title: parsed.title } : {}) };
    }
    case 'docx': {
      let value: string;
      try {
        const { default: mammoth } = await import('mammoth'); // loaded with the first DOCX
        ({ value } = await mammoth.convertToHtml({ buffer: bytes }));
      } catch (err) {
        throw new HttpError(400, `The DOCX file could not be read: ${(err as Error).message}`, { code: 'INVALID_FILE' });
      }
      const doc = fromHtml(kind, `<html><body>${value}</body></html>`);
      return { ...doc, rawHtml: value, html: value };
    }
    case 'html':
      return fromHtml(kind, bytes.toString('utf8'));
    case 'text': {
      const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
      const firstLine = text.split('\n').find((l) => l.trim() !== '')?.replace(/^#+\s*/, '').trim();
      const html = text.split(/\n{2,}/).filter((p) => p.trim()).map((p) => `<p>${esc(p.trim())}</p>`).join('\n');
      return { kind, markdown: text.trim(), html, rawHtml: '', links: [], ...(firstLine ? { title: firstLine.slice(0, 200) } : {}) };
    }
  }
}
