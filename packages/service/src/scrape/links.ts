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

/** Absolute http(s) URL without fragment, or null. */
export function absoluteHttpUrl(href: string | undefined, base: string): string | null {
  if (!href) return null;
  const trimmed = href.trim();
  if (!trimmed || trimmed === '#') return null;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url.href;
}

export function collectLinks(scan: PageScan, base: string): PageLinks {
  const links = new Set<string>();
  for (const el of scan.anchors) {
    const url = absoluteHttpUrl(el.attribs.href, base);
    if (url) links.add(url);
  }
  const discovered = new Set(links);
  for (const el of scan.linkTags) {
    const rel = (el.attribs.rel ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes('canonical') && !rel.includes('alternate')) continue;
    const url = absoluteHttpUrl(el.attribs.href, base);
    if (url) discovered.add(url);
  }
  const images = new Set<string>();
  for (const el of scan.images) {
    const url = absoluteHttpUrl(el.attribs.src, base);
    if (url) images.add(url);
  }
  return { links: [...links], discovered: [...discovered], images: [...images] };
}
