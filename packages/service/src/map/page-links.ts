// Links, title and description of an HTML page, for map's link discovery.
import { load } from 'cheerio';
import { parseHttpUrl } from 'webdata-contract';

export interface PageLinks {
  title?: string;
  description?: string;
  links: string[];
}

export function extractPageLinks(html: string, pageUrl: string): PageLinks {
  const $ = load(html);
  const baseHref = $('base[href]').attr('href');
  const base = (baseHref && parseHttpUrl(baseHref, pageUrl)?.href) || pageUrl;
  const links: string[] = [];
  $('a[href]').each((_, el) => {
    const url = parseHttpUrl($(el).attr('href') ?? '', base);
    if (url) links.push(url.href);
  });
  const title = $('title').first().text().trim() || $('meta[property="og:title"]').attr('content')?.trim();
  const description = ($('meta[name="description"]').attr('content') ?? $('meta[property="og:description"]').attr('content'))?.trim();
  return {
    links,
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
  };
}
