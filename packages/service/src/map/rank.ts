// Map `search`: orders links by relevance to the query with a full-text index over the
// URL path tokens, title and description. Matches come first, best score first; the
// rest keep their order after them (the reference says "orders", not "filters").
import MiniSearch from 'minisearch';
import type { MapLink } from 'webdata-contract';

export type { MapLink };

const tokenize = (text: string): string[] => text.split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 0);

function pathText(url: string): string {
  const u = new URL(url);
  let text = `${u.pathname} ${u.search}`;
  try {
    text = decodeURIComponent(text);
  } catch {
    // keep the encoded form
  }
  // Split camelCase so "/gettingStarted" matches "started".
  return text.replace(/([a-z])([A-Z])/g, '$1 $2');
}

export function rankLinks(links: MapLink[], query: string): MapLink[] {
  if (!query.trim() || links.length === 0) return links;
  const index = new MiniSearch<{ i: number; path: string; title: string; description: string }>({
    idField: 'i',
    fields: ['path', 'title', 'description'],
    tokenize,
    processTerm: (term) => term.toLowerCase(),
    searchOptions: { boost: { title: 2, path: 1.5 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
  });
  index.addAll(links.map((l, i) => ({ i, path: pathText(l.url), title: l.title ?? '', description: l.description ?? '' })));
  const hits = index.search(query);
  const matched = new Set<number>();
  const ranked: MapLink[] = [];
  for (const hit of hits) {
    const i = hit.id as number;
    matched.add(i);
    ranked.push(links[i]);
  }
  links.forEach((l, i) => {
    if (!matched.has(i)) ranked.push(l);
  });
  return ranked;
}
