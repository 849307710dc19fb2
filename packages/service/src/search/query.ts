/*
 * The search query language (reference 4.12): free words, "exact phrases", -exclusions and
 * the operators site:, filetype:, inurl:, allinurl:, intitle:, allintitle:, related:,
 * imagesize:WxH and larger:WxH. Operators are case-insensitive; `-` before an operator
 * negates it (-site:, -inurl:, -intitle:, -filetype:). As on the big search engines,
 * allinurl: and allintitle: take every following word of the query.
 */

export interface ParsedQuery {
  /** Free words (lowercase, in order). */
  terms: string[];
  phrases: string[];
  excludedTerms: string[];
  excludedPhrases: string[];
  sites: string[];
  excludedSites: string[];
  filetypes: string[];
  excludedFiletypes: string[];
  inurl: string[];
  excludedInurl: string[];
  /** Words or phrases that must be in the title. */
  intitle: string[];
  excludedIntitle: string[];
  related?: string;
  imagesize?: { width: number; height: number };
  larger?: { width: number; height: number };
  /** Operators given a value this parser cannot use, for the warning. */
  ignored: string[];
}

interface Piece {
  negated: boolean;
  operator?: string;
  value: string;
  quoted: boolean;
}

/** Splits the query into pieces: [-][operator:]value, where value may be "quoted". */
function pieces(query: string): Piece[] {
  const out: Piece[] = [];
  const re = /(-?)(?:([a-z]+):\s*)?(?:"([^"]*)"?|(\S+))/gi;
  for (const m of query.matchAll(re)) {
    const quoted = m[3] !== undefined;
    const value = (quoted ? m[3] : m[4] ?? '').trim();
    const operator = m[2]?.toLowerCase();
    if (!value && !operator) continue;
    out.push({ negated: m[1] === '-', operator, value, quoted });
  }
  return out;
}

function size(value: string): { width: number; height: number } | undefined {
  const m = /^(\d+)\s*[x×]\s*(\d+)$/i.exec(value);
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined;
}

const KNOWN = new Set(['site', 'filetype', 'ext', 'inurl', 'allinurl', 'intitle', 'allintitle', 'related', 'imagesize', 'larger']);

export function parseQuery(query: string): ParsedQuery {
  const q: ParsedQuery = {
    terms: [], phrases: [], excludedTerms: [], excludedPhrases: [], sites: [], excludedSites: [], filetypes: [],
    excludedFiletypes: [], inurl: [], excludedInurl: [], intitle: [], excludedIntitle: [], ignored: [],
  };
  // allinurl:/allintitle: apply to every word after them.
  let all: 'url' | 'title' | undefined;
  for (const p of pieces(query)) {
    const op = p.operator && KNOWN.has(p.operator) ? p.operator : undefined;
    // An unknown "word:" is ordinary text (e.g. "note:" or a time "10:30").
    const value = p.operator && !op ? `${p.operator}:${p.value}` : p.value;
    if (op === 'allinurl' || op === 'allintitle') {
      all = op === 'allinurl' ? 'url' : 'title';
      if (!value) continue;
    }
    const words = () => value.toLowerCase();
    switch (op) {
      case 'site':
        if (value) (p.negated ? q.excludedSites : q.sites).push(value.toLowerCase().replace(/^https?:\/\//, '').replace(/\/+$/, ''));
        continue;
      case 'filetype':
      case 'ext':
        if (value) (p.negated ? q.excludedFiletypes : q.filetypes).push(value.toLowerCase().replace(/^\./, ''));
        continue;
      case 'inurl':
        if (value) (p.negated ? q.excludedInurl : q.inurl).push(words());
        continue;
      case 'intitle':
        if (value) (p.negated ? q.excludedIntitle : q.intitle).push(words());
        continue;
      case 'related':
        if (value) q.related = value;
        continue;
      case 'imagesize':
      case 'larger': {
        const s = size(value);
        if (s) q[op] = s;
        else q.ignored.push(`${op}:${value}`);
        continue;
      }
      default:
        break;
    }
    // Free text (or the words after allinurl:/allintitle:).
    if (p.negated) {
      if (p.quoted) q.excludedPhrases.push(words());
      else q.excludedTerms.push(words());
      continue;
    }
    if (all === 'url') {
      q.inurl.push(words());
      continue;
    }
    if (all === 'title') {
      q.intitle.push(words());
      continue;
    }
    if (p.quoted) q.phrases.push(words());
    else q.terms.push(words());
  }
  return q;
}
