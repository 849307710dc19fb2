// Deterministic pseudo-random text for the demo site: the same (seed, key) always yields the
// same words, so page content, titles and related links are reproducible without storing them.

/** FNV-1a 32-bit hash of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: tiny, fast and good enough for filler text. A class, so no closures per instance. */
export class Rng {
  private state: number;
  constructor(state: number) {
    this.state = state || 1;
  }
  /** Float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

export function createRng(seed: number, key: string): Rng {
  return new Rng(hash32(`${seed}:${key}`));
}

const ADJECTIVES = [
  'quiet', 'bright', 'gentle', 'rapid', 'hidden', 'golden', 'silver', 'ancient', 'modern', 'simple',
  'curious', 'steady', 'vivid', 'hollow', 'patient', 'bold', 'clever', 'distant', 'early', 'fresh',
  'honest', 'lively', 'mellow', 'narrow', 'proud', 'rustic', 'sharp', 'tidy', 'urban', 'wild',
] as const;

const NOUNS = [
  'river', 'garden', 'engine', 'harbor', 'lantern', 'meadow', 'signal', 'compass', 'orchard', 'bridge',
  'canyon', 'market', 'library', 'workshop', 'forest', 'island', 'journey', 'kettle', 'ladder', 'mirror',
  'network', 'planet', 'quarry', 'railway', 'season', 'tower', 'valley', 'window', 'archive', 'beacon',
] as const;

const WORDS = [
  ...ADJECTIVES, ...NOUNS,
  'the', 'a', 'of', 'and', 'with', 'for', 'across', 'under', 'near', 'beyond', 'through', 'around',
  'builds', 'carries', 'finds', 'keeps', 'measures', 'opens', 'shapes', 'tracks', 'writes', 'gathers',
  'data', 'pages', 'crawler', 'sitemap', 'workflow', 'request', 'response', 'document', 'format', 'index',
] as const;

export function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Two or three title-cased words, e.g. "Golden River Notes". */
export function phrase(rng: Rng, words = 2): string {
  const out = [titleCase(rng.pick(ADJECTIVES)), titleCase(rng.pick(NOUNS))];
  if (words > 2) out.push(titleCase(rng.pick(NOUNS)));
  return out.join(' ');
}

export function keywords(rng: Rng, count: number): string[] {
  const set = new Set<string>();
  while (set.size < count) set.add(rng.pick(NOUNS));
  return [...set];
}

export function sentence(rng: Rng): string {
  const n = rng.int(8, 16);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  return `${titleCase(words.join(' '))}.`;
}

export function paragraph(rng: Rng): string {
  const n = rng.int(3, 5);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(sentence(rng));
  return out.join(' ');
}

/** A fixed date in 2024 derived from the key, as YYYY-MM-DD (sitemap lastmod, bylines). */
export function isoDate(seed: number, key: string): string {
  const day = hash32(`${seed}:date:${key}`) % 365;
  return new Date(Date.UTC(2024, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
}
