/*
 * Ranking. Free words (stopwords dropped unless nothing else is left) and the words of
 * quoted phrases must all match (AND, whole words, no prefix or fuzzy matching); pages are
 * ordered by BM25 with title x3, description x2, URL x1.5, keywords x1.5, text x1. A query
 * with operators only lists the pages that pass, in index order. related:URL orders pages by
 * similarity to that page: a BM25 search (OR) for its 30 most distinctive words (tf-idf),
 * each boosted by its weight; the page itself is left out. sbd:1 then sorts by date,
 * newest first (undated pages last), keeping relevance order among equal dates.
 */
import { dateMs } from './extract.js';
import type { IndexedPage } from './page.js';
import type { ParsedQuery } from './query.js';
import type { SearchIndex } from './store.js';
import { STOPWORDS, tokenize } from './text.js';

const BOOST = { title: 3, description: 2, url: 1.5, keywords: 1.5, text: 1 };
const RELATED_TERMS = 30;

export interface Ranking {
  ids: number[];
  /** Set when related: names a page the index does not hold. */
  relatedMissing?: string;
}

function queryWords(q: ParsedQuery): string[] {
  const words = [...q.terms, ...q.phrases].flatMap(tokenize);
  const meaningful = words.filter((w) => !STOPWORDS.has(w));
  return meaningful.length > 0 ? meaningful : words;
}

/** The source page's most distinctive words with their tf-idf weights. */
function distinctiveTerms(index: SearchIndex, page: IndexedPage): Map<string, number> {
  const counts = new Map<string, number>();
  const words = tokenize(`${page.title} ${page.title} ${page.description} ${page.keywords.join(' ')} ${page.text}`);
  for (const w of words) if (!STOPWORDS.has(w) && !/^\d+$/.test(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const n = Math.max(1, index.mini.documentCount);
  const weighted = [...counts].map(([term, tf]): [string, number] => {
    const df = Math.max(1, index.mini.search(term, { fields: ['title', 'description', 'text', 'keywords'], combineWith: 'OR' }).length);
    return [term, (tf / words.length) * Math.log(1 + n / df)];
  });
  weighted.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(weighted.slice(0, RELATED_TERMS));
}

export function rank(index: SearchIndex, q: ParsedQuery, passing: Set<number>, sortByDate: boolean): Ranking {
  let ids: number[];
  let relatedMissing: string | undefined;
  const words = queryWords(q);
  const matching = words.length > 0
    ? index.mini.search(words.join(' '), { combineWith: 'AND', prefix: false, fuzzy: false, boost: BOOST, filter: (r) => passing.has(r.id as number) })
    : undefined;

  if (q.related) {
    const source = index.find(q.related);
    if (!source) {
      relatedMissing = q.related;
      ids = [];
    } else {
      const terms = distinctiveTerms(index, source.page);
      const allowed = matching ? new Set(matching.map((r) => r.id as number)) : passing;
      const hits = index.mini.search([...terms.keys()].join(' '), {
        combineWith: 'OR', prefix: false, fuzzy: false, boost: BOOST,
        boostTerm: (term) => terms.get(term) ?? 1,
        filter: (r) => r.id !== source.id && allowed.has(r.id as number),
      });
      ids = hits.map((r) => r.id as number);
    }
  } else if (matching) {
    ids = matching.map((r) => r.id as number);
  } else {
    ids = [...passing].sort((a, b) => a - b);
  }

  if (sortByDate) {
    const when = (id: number) => {
      const d = index.byId(id)?.date;
      return d ? dateMs(d) : -Infinity;
    };
    ids = ids.map((id, i) => ({ id, i, t: when(id) })).sort((a, b) => b.t - a.t || a.i - b.i).map((x) => x.id);
  }
  return { ids, ...(relatedMissing ? { relatedMissing } : {}) };
}
