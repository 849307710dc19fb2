// URL keys: when two spellings name one page. Two variants, different on purpose:
//
// - `crawlKey` (with `dedupeKey` under it) is the local service's identity of a page inside one
//   crawl or map: the URL without fragment, without query when the request ignores query
//   parameters, and without a trailing slash on a path (`/docs/` and `/docs` are one page) but
//   with the root's `/` kept, because the key is also the URL the crawl fetches and returns.
// - `urlKey` is the client side's comparison key for URLs from different sources (map links,
//   the selection, a job's returned pages): the open-source server strips every trailing slash
//   from map links and returns the root as `http://host:port`, so this key strips every
//   trailing slash, the root's included, and keeps the query. It is only compared, never fetched.
//
// Pure functions over the URL global: the workflows, the activities and the service share them.

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
 * one to the other serves the same document). The root keeps its `/`.
 */
export function crawlKey(url: URL, ignoreQuery: boolean): string {
  const key = new URL(dedupeKey(url, ignoreQuery));
  if (key.pathname.length > 1 && key.pathname.endsWith('/')) key.pathname = key.pathname.replace(/\/+$/, '') || '/';
  return key.href;
}

/** The URL as given, without its fragment (a fragment never names another page); a non-URL as is. */
export function withoutFragment(raw: string): string {
  try {
    const u = new URL(raw);
    u.hash = '';
    return u.href;
  } catch {
    return raw;
  }
}

/**
 * The key under which two spellings of one page compare equal: lower-case scheme and host,
 * no default port, no fragment, no trailing slash (the root is `scheme://host`), query kept.
 * A string that is not an absolute URL is only trimmed of trailing slashes and fragment.
 */
export function urlKey(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return raw.trim().replace(/#.*$/, '').replace(/\/+$/, '');
  }
  // URL already lower-cases scheme and host and drops the scheme's default port (80, 443).
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}${url.search}`;
}

/** True when both URLs name the same page (see urlKey). */
export function sameUrl(a: string | undefined | null, b: string | undefined | null): boolean {
  if (!a || !b) return false;
  return urlKey(a) === urlKey(b);
}
