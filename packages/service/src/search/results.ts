/*
 * Ranked pages → the arrays of reference 2.9, `limit` items each:
 * - web:    { url, title, description, category? } per page;
 * - news:   pages with a publication date: { title, snippet (description), url, date,
 *           imageUrl? (og:image, else the first image), position };
 * - images: the images of the ranked pages, page by page, each image URL once:
 *           { title (alt text, else the page title), imageUrl, imageWidth?, imageHeight?
 *           (absent when the size is unknown), url (the page), position }.
 * ignoreInvalidURLs drops items whose URL (or imageUrl) is not an http(s) URL the other
 * endpoints would accept, e.g. data: images.
 */
import { isHttpUrl } from 'webdata-contract';
import type { Category } from './categories.js';
import { imageMatches } from './filters.js';
import type { IndexedPage } from './page.js';
import type { ParsedQuery } from './query.js';

export type Source = 'web' | 'images' | 'news';

export interface Hit {
  page: IndexedPage;
  category: Category | null;
}

export type Item = Record<string, unknown> & { url: string };

export interface Built {
  web?: Item[];
  news?: Item[];
  images?: Item[];
  dropped: number;
}

export function buildResults(hits: Hit[], sources: Set<Source>, limit: number, q: ParsedQuery, ignoreInvalidURLs: boolean): Built {
  const out: Built = { dropped: 0 };
  const valid = (url: string) => {
    if (!ignoreInvalidURLs || isHttpUrl(url)) return true;
    out.dropped++;
    return false;
  };

  if (sources.has('web')) {
    out.web = [];
    for (const { page, category } of hits) {
      if (out.web.length >= limit) break;
      if (!valid(page.url)) continue;
      out.web.push({ url: page.url, title: page.title, description: page.description, ...(category ? { category } : {}) });
    }
  }

  if (sources.has('news')) {
    out.news = [];
    for (const { page } of hits) {
      if (out.news.length >= limit) break;
      if (!page.publishedAt || !valid(page.url)) continue;
      const imageUrl = page.leadImage ?? page.images.find((i) => isHttpUrl(i.url))?.url;
      out.news.push({
        title: page.title, snippet: page.description, url: page.url, date: page.publishedAt,
        ...(imageUrl ? { imageUrl } : {}), position: out.news.length + 1,
      });
    }
  }

  if (sources.has('images')) {
    out.images = [];
    const seen = new Set<string>();
    for (const { page } of hits) {
      for (const img of page.images) {
        if (out.images.length >= limit) break;
        if (seen.has(img.url) || !imageMatches(img, q)) continue;
        seen.add(img.url);
        if (!valid(img.url) || !valid(page.url)) continue;
        out.images.push({
          title: img.alt || page.title, imageUrl: img.url,
          ...(img.width !== undefined && img.height !== undefined ? { imageWidth: img.width, imageHeight: img.height } : {}),
          url: page.url, position: out.images.length + 1,
        });
      }
      if (out.images.length >= limit) break;
    }
  }
  return out;
}

export function countResults(b: Built): number {
  return (b.web?.length ?? 0) + (b.news?.length ?? 0) + (b.images?.length ?? 0);
}
