// Page metadata from <head>: the named members of the page document (title, description,
// language, keywords, og*), and every other <meta name|property> under its own key as a string.
import type { PageScan } from './dom.js';

/** og:* properties with a camelCase member of their own. */
const OG_KEYS: Record<string, string> = {
  'og:title': 'ogTitle',
  'og:description': 'ogDescription',
  'og:url': 'ogUrl',
  'og:image': 'ogImage',
  'og:audio': 'ogAudio',
  'og:video': 'ogVideo',
  'og:determiner': 'ogDeterminer',
  'og:locale': 'ogLocale',
  'og:site_name': 'ogSiteName',
};

export function extractMetadata(scan: PageScan, baseUrl: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const title = scan.title?.trim() ?? '';
  if (title) out.title = title;
  const language = scan.html?.attribs.lang?.trim();
  if (language) out.language = language;

  const localeAlternates: string[] = [];
  const others = new Map<string, string[]>();
  for (const el of scan.metas) {
    const attrs = el.attribs;
    const key = (attrs.name ?? attrs.property ?? attrs.itemprop)?.trim();
    const content = attrs.content;
    if (!key || content === undefined) continue;
    const lower = key.toLowerCase();
    if (lower === 'description' || lower === 'keywords' || lower === 'robots') {
      out[lower] ??= content;
    } else if (lower === 'og:locale:alternate') {
      localeAlternates.push(content);
    } else if (OG_KEYS[lower]) {
      out[OG_KEYS[lower]] ??= content;
    } else {
      const list = others.get(key) ?? [];
      list.push(content);
      others.set(key, list);
    }
  }
  if (localeAlternates.length > 0) out.ogLocaleAlternate = localeAlternates;
  // Other keys keep their spelling; repeated ones are joined, since the contract wants strings.
  for (const [key, values] of others) if (!(key in out)) out[key] = values.join(', ');

  const icon = scan.linkTags.find((el) => (el.attribs.rel ?? '').toLowerCase().split(/\s+/).includes('icon'))?.attribs.href;
  if (icon) {
    try {
      out.favicon = new URL(icon, baseUrl).href;
    } catch {
      // An unparsable icon URL is simply left out.
    }
  }
  return out;
}
