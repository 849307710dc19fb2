// URL parsing and de-duplication keys shared by the crawler and map.

/** Parses an absolute http(s) URL (or one relative to `base`), without its fragment. */
export function parseHttpUrl(raw: string, base?: string | URL): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url;
}

/**
 * The identity of a page for de-duplication: the URL without fragment and, with
 * `ignoreQuery`, without query string (so `/a?x=1` and `/a` are one page).
 */
export function dedupeKey(url: URL, ignoreQuery: boolean): string {
  if (!ignoreQuery || url.search === '') return url.href;
  const copy = new URL(url.href);
  copy.search = '';
  return copy.href;
}

/**
 * The identity of a page within a crawl: dedupeKey, and a trailing slash does not make
 * another page (`/docs/api/v2` and `/docs/api/v2/` are one page; a server that redirects
 * one to the other serves the same document).
 */
export function crawlKey(url: URL, ignoreQuery: boolean): string {
  const key = new URL(dedupeKey(url, ignoreQuery));
  if (key.pathname.length > 1 && key.pathname.endsWith('/')) key.pathname = key.pathname.replace(/\/+$/, '') || '/';
  return key.href;
}

/** Extensions of files a crawl never visits (images, styles, scripts, fonts, media, archives). */
const FILE_EXTENSIONS = ['.png', '.jpg', '.jpeg', '.gif', '.css', '.js', '.ico', '.svg', '.tiff', '.zip', '.exe', '.dmg', '.mp4', '.mp3', '.wav', '.pptx', '.xlsx', '.avi', '.flv', '.woff', '.ttf', '.woff2', '.webp', '.inc'];

/** Whether a link points at a non-page file by its extension (PDF and DOCX are pages: they are converted). */
export function isFileUrl(url: URL): boolean {
  const path = url.pathname.toLowerCase();
  return FILE_EXTENSIONS.some((ext) => path.endsWith(ext));
}
