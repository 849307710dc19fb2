// URL comparison keys: the map's links, the selection and a job's returned URLs must compare
// equal for the same page. The open-source server strips trailing slashes from map links and
// returns the root as `http://host:port`; a crawl returns `http://host:port/`. Compare keys.

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
