// Links and images of a page, made absolute against the document base. `discovered` feeds crawl
// discovery: every http(s) <a>/<area> target plus canonical and alternate links.
import type { PageScan } from './dom.js';

export interface PageLinks {
  /** <a>/<area> targets: absolute http(s), fragment removed, deduplicated, in page order. */
  links: string[];
  /** links plus <link rel=canonical|alternate> targets. */
  discovered: string[];
  /** <img src> targets: absolute http(s), deduplicated (data: URIs left out). */
  images: string[];
}

/** The document base: <base href> resolved against the page URL, else the page URL. */
export function documentBase(scan: PageScan, pageUrl: string): string {
  const href = scan.base?.attribs.href;
  if (!href) return pageUrl;
  try {
    return new URL(href, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

/**
 * A page's URLs made absolute against its base, each distinct value parsed once: the content
 * (clean.ts) and the link lists read the same hrefs, and pages repeat them.
 */
export class PageUrls {
  private readonly hrefs = new Map<string, string | null>();
  /** The base's http(s) root without its '/' (`https://host:port`), '' before it is needed, null where there is none. */
  private root: string | null = '';

  constructor(readonly base: string) {}

  /** `trimmed` made absolute, or null when it does not parse as a URL. */
  href(trimmed: string): string | null {
    let href = this.hrefs.get(trimmed);
    if (href === undefined) {
      const root = isPlainPath(trimmed) ? this.httpRoot() : null;
      if (root !== null) href = root + trimmed;
      else {
        try {
          href = new URL(trimmed, this.base).href;
        } catch {
          href = null;
        }
      }
      this.hrefs.set(trimmed, href);
    }
    return href;
  }

  private httpRoot(): string | null {
    if (this.root === '') {
      try {
        const url = new URL('/', this.base);
        this.root = url.protocol === 'http:' || url.protocol === 'https:' ? url.href.slice(0, -1) : null;
      } catch {
        this.root = null;
      }
    }
    return this.root;
  }
}

/** RFC 3986's unreserved characters but the dot: letters, digits, '_', '~', '-'. */
const isUnreserved = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x7e || c === 0x2d;

/**
 * Whether a root-relative path is one a URL parser leaves as written: '/', or segments of
 * unreserved characters, none empty or starting with a dot (no dot segments), maybe ending with
 * '/'. Against an http(s) base it resolves to the base's root followed by the path, without parsing
 * it. Read by hand: pages hold many links, and a regular expression's call cost more.
 */
export function isPlainPath(url: string): boolean {
  if (url.charCodeAt(0) !== 0x2f /* / */) return false;
  for (let i = 1; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f || c === 0x2e /* . */) {
      if (url.charCodeAt(i - 1) === 0x2f) return false;
    } else if (!isUnreserved(c)) return false;
  }
  return true;
}

/** Absolute http(s) URL without fragment, or null. */
export function absoluteHttpUrl(href: string | undefined, urls: PageUrls): string | null {
  if (!href) return null;
  const trimmed = href.trim();
  if (!trimmed || trimmed === '#') return null;
  const url = urls.href(trimmed);
  if (url === null || !(url.startsWith('http:') || url.startsWith('https:'))) return null;
  // A serialized URL has a '#' only where its fragment starts.
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

export function collectLinks(scan: PageScan, urls: PageUrls): PageLinks {
  const links = new Set<string>();
  for (const el of scan.anchors) {
    const url = absoluteHttpUrl(el.attribs.href, urls);
    if (url) links.add(url);
  }
  const discovered = new Set(links);
  for (const el of scan.linkTags) {
    const rel = (el.attribs.rel ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes('canonical') && !rel.includes('alternate')) continue;
    const url = absoluteHttpUrl(el.attribs.href, urls);
    if (url) discovered.add(url);
  }
  const images = new Set<string>();
  for (const el of scan.images) {
    const url = absoluteHttpUrl(el.attribs.src, urls);
    if (url) images.add(url);
  }
  return { links: [...links], discovered: [...discovered], images: [...images] };
}
