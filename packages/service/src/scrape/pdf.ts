// PDF → text with unpdf (pdf.js). Each page becomes a block of markdown; the html format gets the
// same text as paragraphs. Without the `pdf` parser the file is passed through base64-encoded,
// as the hosted service does.
import { esc } from './text.js';

export interface ParsedPdf {
  markdown: string;
  html: string;
  title?: string;
  numPages: number;
}

export function isPdf(contentType: string, body: Buffer): boolean {
  return /application\/(x-)?pdf/i.test(contentType) || body.subarray(0, 5).toString('latin1') === '%PDF-';
}

export async function parsePdf(bytes: Buffer, maxPages?: number): Promise<ParsedPdf> {
  const { extractText, getDocumentProxy, getMeta } = await import('unpdf'); // loaded with the first PDF
  // pdf.js takes ownership of the buffer it is given, so it gets a copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const info = (await getMeta(pdf)).info as Record<string, unknown>;
    const pages = text.slice(0, maxPages ?? text.length).map((page) => page.trim());
    const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : undefined;
    return {
      markdown: pages.filter(Boolean).join('\n\n'),
      html: pages
        .filter(Boolean)
        .map((page) => `<div class="pdf-page">${page.split('\n').map((line) => `<p>${esc(line)}</p>`).join('')}</div>`)
        .join('\n'),
      title,
      numPages: totalPages,
    };
  } finally {
    await pdf.destroy();
  }
}
