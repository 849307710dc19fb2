// The rule by which two servers' markdown of one page counts as equal (issue 46), pure: after
// normalizing what converters format differently (list markers, emphasis, escapes, setext or
// ATX headings, table pipes, whitespace), the page's words in order match at a ratio of at least
// 0.95 (words glued by one converter and spaced by the other count as matched) and its
// headings and link targets are the same. A page that is not equal gets a short
// reason: missing text, extra text, a heading or link difference, or empty on one side.
import { diffArrays } from 'diff';

export const MIN_RATIO = 0.95;
const BELOW_THRESHOLD = 0.949;

export interface NormalizedPage {
  words: string[];
  /** Heading texts in order (level ignored: one converter's setext is another's ATX). */
  headings: string[];
  /** Link targets, unique, sorted (images not included). */
  links: string[];
}

export interface Comparison {
  equal: boolean;
  /** Words in order: 2·matched / (words of a + words of b); 1 when both are empty. */
  ratio: number;
  /** Empty when equal. */
  reasons: string[];
  /** Words of the reference (a) the other side lacks, and words the other side adds. */
  missing: string[];
  extra: string[];
}

/** Words of a piece of inline markdown: lower case, letters and digits only. */
function wordsOf(text: string): string[] {
  return text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
}

function headingText(raw: string): string {
  return wordsOf(inlineText(raw)).join(' ');
}

/** Inline markdown to its text: links and images to their text, raw HTML tags dropped, escapes undone, emphasis and code marks dropped. */
function inlineText(line: string): string {
  return line
    .replace(/!\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, '$1')
    .replace(/\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, '$1')
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    .replace(/<\/?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]*)?\/?>/g, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~&])/g, '$1')
    .replace(/[*_~`]+/g, ' ');
}

/**
 * A root-relative target as the page's origin resolves it: one converter writes a link as the
 * page has it, the other resolves it; both point at the same resource.
 */
function rooted(target: string): string {
  return target.startsWith('/') && !target.startsWith('//') ? `{origin}${target}` : target;
}

/**
 * Link targets of a markdown text (not images), titles, angle brackets and backslash escapes
 * dropped. A link without text is not counted: it shows nothing, and one converter drops it.
 */
function linkTargets(md: string): string[] {
  const out = new Set<string>();
  // [text](target "title"): the text may hold an image; the target may hold balanced parentheses.
  const re = /(!?)\[((?:[^\][]|\[[^\]]*\])*)\]\(\s*<?((?:[^()\s<>]|\([^()]*\))*)>?(?:\s+"(?:[^"\\]|\\.)*")?\s*\)/g;
  for (let m = re.exec(md); m; m = re.exec(md)) {
    if (m[1] === '!' || !m[3] || m[2].trim() === '') continue;
    out.add(rooted(m[3].replace(/\\([^a-zA-Z0-9])/g, '$1')));
  }
  for (const m of md.matchAll(/<((?:https?|mailto):[^>\s]+)>/g)) out.add(m[1]);
  return [...out].sort();
}

/**
 * A markdown text as words in order, headings and link targets. `origin`, when given, is
 * replaced by "{origin}" first, so answers scraped from the corpus served on another port compare.
 */
export function normalizeMarkdown(markdown: string, origin?: string): NormalizedPage {
  let md = markdown.replace(/\r\n?/g, '\n');
  if (origin) md = md.split(origin).join('{origin}');
  const lines = md.split('\n');
  const headings: string[] = [];
  const textLines: string[] = [];
  let fence: string | null = null;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    const fenceMark = /^\s*(```+|~~~+)/.exec(line);
    if (fenceMark) {
      if (fence === null) fence = fenceMark[1][0];
      else if (fenceMark[1][0] === fence) fence = null;
      continue; // the fence line itself (and its info string) is formatting
    }
    if (fence !== null) {
      textLines.push(line);
      continue;
    }
    const atx = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) {
      const text = headingText(atx[1]);
      if (text) headings.push(text);
      textLines.push(atx[1]);
      continue;
    }
    // Setext: a text line underlined with === or ---.
    const next = lines[k + 1];
    if (next !== undefined && /^\s{0,3}(=+|-+)\s*$/.test(next) && line.trim() !== '' && !/^\s*([-*+]|\d+[.)])\s/.test(line) && !line.includes('|')) {
      const text = headingText(line);
      if (text) headings.push(text);
      textLines.push(line);
      k++;
      continue;
    }
    textLines.push(line
      .replace(/^\s*(>\s*)+/, '')
      .replace(/^\s*([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?/, '')
      .replace(/^\s*([-*_]\s*){3,}$/, '')
      .replace(/^\s*\|?(\s*:?-{2,}:?\s*\|)+\s*(:?-{2,}:?)?\s*$/, '')
      .replace(/\|/g, ' '));
  }
  const words = wordsOf(inlineText(textLines.join('\n')));
  return { words, headings, links: linkTargets(md) };
}

function setDiff(a: string[], b: string[]): string[] {
  const other = new Set(b);
  return a.filter((x) => !other.has(x));
}

function sample(words: string[], n = 6): string {
  return `"${words.slice(0, n).join(' ')}${words.length > n ? ' …' : ''}"`;
}

/**
 * Runs of words one side lacks and the other adds next to it often hold the same letters,
 * differently split: one converter glues the words of adjacent inline blocks ("Open
 * detailsBody"), the other spaces them. The words of such a pair that lie wholly within the
 * letters both runs share at their start or end count as matched.
 */
function alignRuns(removed: string[], added: string[]): { matchedRemoved: number; matchedAdded: number; missing: string[]; extra: string[] } {
  const a = removed.join('');
  const b = added.join('');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const split = (words: string[], total: number) => {
    const kept: string[] = [];
    let matched = 0;
    let at = 0;
    for (const w of words) {
      const end = at + w.length;
      if (end <= prefix || at >= total - suffix) matched++;
      else kept.push(w);
      at = end;
    }
    return { matched, kept };
  };
  const r = split(removed, a.length);
  const d = split(added, b.length);
  return { matchedRemoved: r.matched, matchedAdded: d.matched, missing: r.kept, extra: d.kept };
}

/**
 * Words in order, with their missing and extra runs. The diff is bounded (cost on large pages):
 * past edits of 30% of the words (a glued run counts as edits before it is aligned, so the
 * bound is well above the 5% a page may differ by) the ratio and the runs are estimated from
 * the words as bags, and the ratio is capped below the threshold.
 */
function wordDiff(a: string[], b: string[]): { ratio: number; missing: string[]; extra: string[] } {
  const total = a.length + b.length;
  if (total === 0) return { ratio: 1, missing: [], extra: [] };
  const changes = diffArrays(a, b, { maxEditLength: Math.max(64, Math.ceil(total * 0.3)) });
  if (changes) {
    let matched = 0;
    const missing: string[] = [];
    const extra: string[] = [];
    for (let k = 0; k < changes.length; k++) {
      const c = changes[k];
      if (!c.removed && !c.added) {
        matched += 2 * c.value.length;
        continue;
      }
      const next = changes[k + 1];
      const removed = c.removed ? c.value : next?.removed ? next.value : [];
      const added = c.added ? c.value : next?.added ? next.value : [];
      if (next && (next.removed || next.added) && next.removed !== c.removed) k++;
      const run = alignRuns(removed, added);
      matched += run.matchedRemoved + run.matchedAdded;
      missing.push(...run.missing);
      extra.push(...run.extra);
    }
    return { ratio: matched / total, missing, extra };
  }
  const counts = new Map<string, number>();
  for (const w of b) counts.set(w, (counts.get(w) ?? 0) + 1);
  const missing: string[] = [];
  for (const w of a) {
    const c = counts.get(w) ?? 0;
    if (c > 0) counts.set(w, c - 1);
    else missing.push(w);
  }
  const extra: string[] = [];
  const left = new Map<string, number>();
  for (const w of a) left.set(w, (left.get(w) ?? 0) + 1);
  for (const w of b) {
    const c = left.get(w) ?? 0;
    if (c > 0) left.set(w, c - 1);
    else extra.push(w);
  }
  const bagMatched = a.length - missing.length;
  return { ratio: Math.min((2 * bagMatched) / total, BELOW_THRESHOLD), missing, extra };
}

/** Compares `other` against the reference `ref` (both markdown of the same page). */
export function compareMarkdown(ref: string, other: string, origin?: string): Comparison {
  const a = normalizeMarkdown(ref, origin);
  const b = normalizeMarkdown(other, origin);
  const { ratio, missing, extra } = wordDiff(a.words, b.words);
  const reasons: string[] = [];
  if (a.words.length > 0 && b.words.length === 0) reasons.push('empty (reference has text)');
  else if (a.words.length === 0 && b.words.length > 0) reasons.push('extra text (reference is empty)');
  else if (ratio < MIN_RATIO) {
    if (missing.length > 0) reasons.push(`missing text (${missing.length} words: ${sample(missing)})`);
    if (extra.length > 0) reasons.push(`extra text (${extra.length} words: ${sample(extra)})`);
  }
  const headingsMissing = setDiff(a.headings, b.headings);
  const headingsExtra = setDiff(b.headings, a.headings);
  if (headingsMissing.length > 0 || headingsExtra.length > 0 || a.headings.join('\n') !== b.headings.join('\n')) {
    const parts = [
      ...headingsMissing.map((h) => `-"${h}"`),
      ...headingsExtra.map((h) => `+"${h}"`),
    ];
    reasons.push(`headings differ (${parts.length > 0 ? parts.slice(0, 3).join(' ') : 'order'})`);
  }
  const linksMissing = setDiff(a.links, b.links);
  const linksExtra = setDiff(b.links, a.links);
  if (linksMissing.length > 0 || linksExtra.length > 0) {
    const parts = [...linksMissing.map((l) => `-${l}`), ...linksExtra.map((l) => `+${l}`)];
    reasons.push(`links differ (${linksMissing.length} missing, ${linksExtra.length} extra: ${parts.slice(0, 2).join(' ')})`);
  }
  return { equal: reasons.length === 0, ratio, reasons, missing, extra };
}
