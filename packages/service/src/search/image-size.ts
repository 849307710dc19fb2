// Image dimensions the search index can know without fetching: the <img> width/height
// attributes, or the header of a data: URI (PNG, GIF, JPEG SOF, SVG width/height).

/** A positive integer from an attribute such as "320" or "320px"; undefined otherwise. */
export function dimension(value: string | undefined): number | undefined {
  const m = value === undefined ? null : /^\s*(\d+)(?:px)?\s*$/i.exec(value);
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export function dataUriSize(uri: string): { width: number; height: number } | undefined {
  const m = /^data:([^;,]+)(;base64)?,(.*)$/is.exec(uri);
  if (!m) return undefined;
  const type = m[1].toLowerCase();
  let bytes: Buffer;
  try {
    bytes = m[2] ? Buffer.from(m[3], 'base64') : Buffer.from(decodeURIComponent(m[3]), 'utf8');
  } catch {
    return undefined;
  }
  if (type === 'image/png' && bytes.length >= 24 && bytes.toString('ascii', 12, 16) === 'IHDR') {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (type === 'image/gif' && bytes.length >= 10 && bytes.toString('ascii', 0, 3) === 'GIF') {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (type === 'image/jpeg') return jpegSize(bytes);
  if (type === 'image/svg+xml') {
    const svg = bytes.toString('utf8');
    const w = dimension(/<svg[^>]*\swidth="([^"]+)"/i.exec(svg)?.[1]);
    const h = dimension(/<svg[^>]*\sheight="([^"]+)"/i.exec(svg)?.[1]);
    return w && h ? { width: w, height: h } : undefined;
  }
  return undefined;
}

function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1];
    const length = bytes.readUInt16BE(i + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return undefined;
}
