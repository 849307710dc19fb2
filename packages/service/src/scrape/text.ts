// Small text helpers shared by the converters.

/** What a data: image becomes with removeBase64Images (the hosted service's placeholder). */
export const BASE64_IMAGE_PLACEHOLDER = '<Base64-Image-Removed>';

const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Escapes & < > " (text and attribute values alike); most strings have none, so they are returned as they are. */
export function esc(text: string): string {
  return /[&<>"]/.test(text) ? text.replace(/[&<>"]/g, (c) => ENTITY[c]) : text;
}

/** Decodes a body by the charset of its Content-Type, else a <meta charset> in its first bytes, else UTF-8. */
export function decodeText(body: Buffer, contentType: string): string {
  const declared = /charset=["']?([\w-]+)/i.exec(contentType)?.[1]
    ?? /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  const label = declared?.toLowerCase();
  if (label && label !== 'utf-8' && label !== 'utf8') {
    try {
      return new TextDecoder(label).decode(body);
    } catch {
      // An unknown charset label falls back to UTF-8.
    }
  }
  return UTF8.decode(body);
}
/** One decoder for the usual case: a whole-body decode keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8');
