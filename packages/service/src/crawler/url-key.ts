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
