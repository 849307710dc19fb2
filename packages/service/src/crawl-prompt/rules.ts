/*
 * Rule-based reading of a crawl prompt, used when no model is configured. It reads only
 * what it can read reliably and says what it read in `notes`:
 *
 * - Paths and sections: explicit paths ("/blog", "/docs/api/*", or full URLs on the start
 *   host) and named sections ("the blog section", "blog posts", "docs pages", "only the
 *   blog", "under the docs", "the blog, 20 pages") become patterns like `^/blog(/|$)`. A section word maps to
 *   the path `/<word>` (lowercased): the site itself is not consulted.
 * - Polarity: words like exclude, except, not, without, skip, avoid, omit turn the
 *   following paths and sections into excludePaths, until a word like crawl, include,
 *   only, focus or get turns them back into includePaths. Sentences reset it.
 * - "50 pages", "up to 50 posts", "limit 50", "first 20 urls" → limit (digits, or the words
 *   one..twenty, fifty, a hundred, a thousand).
 * - "depth 2", "max depth of 2", "2 levels deep", "no deeper than 2 levels" → maxDiscoveryDepth.
 * - "subdomains" → allowSubdomains; "external (links|sites)" → allowExternalLinks (false when negated).
 * - "sitemap only", "only the sitemap" → sitemap "only"; "skip/ignore/without/no sitemap" → "skip".
 * - "entire domain", "whole site", "full website" → crawlEntireDomain.
 * - "ignore query parameters/strings", "without query strings" → ignoreQueryParameters.
 * - "ignore robots.txt" → ignoreRobotsTxt (an enterprise feature the team must be enabled for).
 * - "delay of 2 seconds", "wait 500 ms between pages", "2 seconds between requests" → delay (seconds).
 * - When the start URL has a path and an included section is not under it, crawlEntireDomain
 *   is set too, or the crawl could not reach that section; a start URL that no include
 *   pattern matches is noted (only sitemap URLs would then be crawled).
 */
import type { CrawlPromptOptions } from './types.js';

export interface RuleReading {
  options: CrawlPromptOptions;
  notes: string[];
}

const NEGATIONS = new Set(['exclude', 'excluding', 'except', 'not', 'no', 'without', 'skip', 'skipping', 'avoid', 'avoiding', 'omit', 'omitting', 'never', "don't", 'dont', "doesn't", 'ignore', 'ignoring', 'minus', 'besides']);
const POSITIVES = new Set(['crawl', 'include', 'including', 'only', 'focus', 'get', 'scrape', 'fetch', 'cover', 'collect', 'index', 'plus', 'also', 'just', 'want', 'need']);
/** Words after which a section name follows, without changing polarity ("pages from the shop"). */
const OPENERS = new Set(['from', 'under', 'within', 'inside', 'beneath', 'below']);
const TRANSPARENT = new Set(['the', 'a', 'an', 'my', 'our', 'their', 'its', 'his', 'her', 'your', 'all', 'any', 'on', 'to', 'at', 'in', 'of', 'out', 'whole']);
const DETERMINERS = new Set(['the', 'our', 'my', 'their', 'its', 'your']);
const CONJUNCTIONS = new Set(['and', 'or', ',', '&', 'nor', 'as', 'well']);
const SECTION_NOUNS = new Set(['section', 'sections', 'page', 'pages', 'post', 'posts', 'article', 'articles', 'area', 'areas', 'folder', 'folders', 'directory', 'directories', 'category', 'categories', 'part', 'parts', 'subfolder', 'path', 'paths', 'content', 'entries']);
/** Words that are never a section name. */
const NOT_SECTIONS = new Set([
  ...SECTION_NOUNS, 'site', 'website', 'websites', 'domain', 'domains', 'everything', 'anything', 'nothing', 'links', 'link', 'urls',
  'url', 'sitemap', 'sitemaps', 'subdomains', 'subdomain', 'external', 'query', 'queries', 'parameters', 'parameter', 'params',
  'param', 'strings', 'string', 'robots', 'robots.txt', 'more', 'than', 'less', 'first', 'up', 'most', 'max', 'maximum', 'limit',
  'depth', 'level', 'levels', 'deep', 'deeper', 'crawl', 'entire', 'whole', 'full', 'each', 'every', 'this', 'that', 'these',
  'those', 'it', 'them', 'which', 'with', 'for', 'by', 'me', 'i', 'you', 'we', 'us', 'please', 'data', 'text', 'html', 'stuff',
  'things', 'main', 'start', 'root', 'top', 'seconds', 'second', 'secs', 'sec', 'ms', 'milliseconds', 'delay', 'between',
  'requests', 'request', 'last', 'past', 'recent', 'year', 'years', 'month', 'months', 'week', 'weeks', 'day', 'days',
  'today', 'new', 'newest', 'latest', 'old', 'oldest', 'same', 'other', 'others', 'be', 'is', 'are', 'should', 'can',
  'would', 'could', 'will', 'some', 'few', 'many', 'much', 'follow', 'following', 'go', 'going', 'do', 'does', 'use', 'using',
  'there', 'here', 'where', 'what', 'how', 'when', 'while', 'about', 'into', 'onto', 'over', 'then', 'so', 'if', 'too',
  'very', 'like', 'one', 'two', 'three', 'once', 'times', 'time', 'wait',
  'pause', 'slow', 'slowly', 'fast', 'quickly', 'politely', 'gently', 'single', 'public', 'visible', 'available',
  'english', 'german', 'french', 'spanish', 'language', 'languages', 'pdf', 'pdfs', 'images', 'image', 'files', 'file',
]);

const WORD_NUMBERS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20,
  thirty: 30, forty: 40, fifty: 50, hundred: 100, thousand: 1000,
};

/** Digits for number words ("a hundred" → 100, "twenty" → 20), so one set of patterns reads both. */
function numbersToDigits(text: string): string {
  return text
    .replace(/\b(?:a|one)\s+(hundred|thousand)\b/gi, (_, w: string) => String(WORD_NUMBERS[w.toLowerCase()]))
    .replace(/\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty)\b/gi,
      (w: string) => String(WORD_NUMBERS[w.toLowerCase()]));
}

const int = (raw: string): number => Number(raw.replace(/,/g, ''));

/** `^/blog(/|$)` for "/blog", "/blog/", "/blog/*"; `*` inside a path matches one segment. */
export function pathPattern(path: string): string | undefined {
  let p = path.replace(/[).,;:!?'"]+$/, '').replace(/\/\*\*?$/, '').replace(/\*$/, '').replace(/\/+$/, '');
  if (!p.startsWith('/') || p === '') return undefined;
  p = p.replace(/\/{2,}/g, '/');
  const escaped = p.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*');
  return `^${escaped}(/|$)`;
}

interface Token {
  text: string;
  lower: string;
  kind: 'word' | 'path' | 'number' | 'punct';
}

function tokenize(sentence: string, startUrl: URL): Token[] {
  const tokens: Token[] = [];
  const re = /(https?:\/\/[^\s"'<>]+)|(\/[A-Za-z0-9._~%!$&*+=:@/-]*)|(\d[\d,]*(?:\.\d+)?)|([A-Za-z][A-Za-z0-9_'.-]*)|(,)/g;
  for (const m of sentence.matchAll(re)) {
    if (m[1]) {
      let url: URL | undefined;
      try {
        url = new URL(m[1].replace(/[).,;:!?'"]+$/, ''));
      } catch {
        url = undefined;
      }
      if (url && url.host === startUrl.host && url.pathname !== '/') tokens.push({ text: url.pathname, lower: url.pathname.toLowerCase(), kind: 'path' });
      continue;
    }
    const text = (m[2] ?? m[3] ?? m[4] ?? m[5]).replace(/[.']+$/, '');
    const kind = m[2] ? 'path' : m[3] ? 'number' : m[4] ? 'word' : 'punct';
    tokens.push({ text, lower: text.toLowerCase(), kind });
  }
  return tokens;
}

/** Path and section mentions with their polarity, in prompt order. */
function readSections(text: string, startUrl: URL): Array<{ pattern: string; exclude: boolean; said: string }> {
  const found: Array<{ pattern: string; exclude: boolean; said: string }> = [];
  for (const sentence of text.split(/[.;!?\n]+(?:\s|$)|\s+but\s+/i)) {
    const tokens = tokenize(sentence, startUrl);
    let exclude = false;
    // "the blog, 25 pages": a sentence that opens with a determiner names a section.
    let listing = DETERMINERS.has(tokens[0]?.lower ?? '');
    const capture = (path: string, said: string) => {
      const pattern = pathPattern(path);
      if (pattern) found.push({ pattern, exclude, said });
      listing = true;
    };
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (t.kind === 'path') {
        capture(t.text, t.text);
        continue;
      }
      if (t.kind === 'punct' || CONJUNCTIONS.has(t.lower)) continue;
      if (t.kind === 'number') {
        listing = false;
        continue;
      }
      if (NEGATIONS.has(t.lower)) {
        exclude = true;
        listing = true;
        continue;
      }
      if (POSITIVES.has(t.lower)) {
        exclude = false;
        listing = true;
        continue;
      }
      if (OPENERS.has(t.lower)) {
        listing = true;
        continue;
      }
      if (TRANSPARENT.has(t.lower)) continue;
      const candidate = /^[a-z][a-z0-9_-]*$/.test(t.lower) && !NOT_SECTIONS.has(t.lower);
      const next = tokens[i + 1];
      if (candidate && next && SECTION_NOUNS.has(next.lower)) {
        capture(`/${t.lower}`, `${t.text} ${next.text}`);
        i++;
      } else if (candidate && next?.lower === 'only') {
        exclude = false;
        capture(`/${t.lower}`, `${t.text} only`);
      } else if (candidate && listing) {
        capture(`/${t.lower}`, t.text);
      } else {
        listing = false;
      }
    }
  }
  return found;
}

export function readPromptRules(prompt: string, startUrl: string): RuleReading {
  const start = new URL(startUrl);
  const text = numbersToDigits(prompt);
  const lower = text.toLowerCase();
  const options: CrawlPromptOptions = {};
  const notes: string[] = [];

  // Sitemap, robots and query handling first: their wording ("skip the sitemap", "ignore
  // query parameters") must not be read as excluded sections.
  if (/\b(?:sitemaps?\s+(?:urls?\s+)?only|only\s+(?:use\s+|follow\s+|read\s+|crawl\s+|from\s+)?(?:the\s+)?sitemaps?|just\s+(?:the\s+)?sitemaps?)\b/.test(lower)) {
    options.sitemap = 'only';
    notes.push('sitemap "only": only sitemap URLs (and the start URL) are crawled');
  } else if (/\b(?:skip|skipping|ignore|ignoring|without|no|not\s+use|don'?t\s+use|avoid)\s+(?:the\s+|any\s+)?sitemaps?\b/.test(lower)) {
    options.sitemap = 'skip';
    notes.push('sitemap "skip": the sitemap is not read');
  }
  if (/\b(?:ignor(?:e|ing)|drop(?:ping)?|strip(?:ping)?|remov(?:e|ing)|without|disregard(?:ing)?)\s+(?:the\s+|any\s+|all\s+)?(?:url\s+)?query(?:\s*(?:strings?|param(?:eter)?s?))?\b/.test(lower)) {
    options.ignoreQueryParameters = true;
    notes.push('ignoreQueryParameters: URLs differing only in their query string are one page');
  }
  if (/\bignor(?:e|ing)\s+(?:the\s+)?robots(?:\.txt)?\b/.test(lower)) {
    options.ignoreRobotsTxt = true;
    notes.push('ignoreRobotsTxt: an enterprise feature; the crawl answers 403 unless the team is enabled for it');
  }
  const scrubbed = text
    .replace(/\b(?:skip|skipping|ignore|ignoring|without|no|not\s+use|don'?t\s+use|avoid|only\s+use|use|just|only|from)\s+(?:the\s+|any\s+)?sitemaps?\b/gi, ' ')
    .replace(/\b(?:ignor(?:e|ing)|drop(?:ping)?|strip(?:ping)?|remov(?:e|ing)|without|disregard(?:ing)?)\s+(?:the\s+|any\s+|all\s+)?(?:url\s+)?query(?:\s*(?:strings?|param(?:eter)?s?))?\b/gi, ' ')
    .replace(/\bignor(?:e|ing)\s+(?:the\s+)?robots(?:\.txt)?\b/gi, ' ')
    .replace(/\b(?:no|not|without|exclude|excluding|skip|don'?t\s+follow|do\s+not\s+follow|never\s+follow)\s+(?:the\s+|any\s+)?(?:sub-?domains?|external\s+(?:links?|sites?|domains?|pages?))\b/gi, ' ');

  // Limit and depth.
  const limit = /\b(?:up\s+to|at\s+most|max(?:imum)?(?:\s+of)?|no\s+more\s+than|not\s+more\s+than|first|only|just|about|around)?\s*(\d[\d,]*)\s+(?:[a-z]+\s+)?(?:pages?|urls?|links?|documents?|docs|results?|posts?|articles?|items?|entries)\b/i.exec(text)
    ?? /\blimit(?:ed)?(?:\s+(?:it|the\s+crawl|crawling))?\s*(?:to|of|at|=|:)?\s*(\d[\d,]*)\b/i.exec(text);
  const depth = /\b(?:max(?:imum)?\s+)?(?:discovery\s+)?depth\s*(?:of|=|:|to)?\s*(\d+)\b/i.exec(text)
    ?? /\b(\d+)\s+(?:levels?|clicks?|hops?|link\s+hops?)\s+(?:deep|down|away|from|of\s+links)\b/i.exec(text)
    ?? /\bno\s+deeper\s+than\s+(\d+)(?:\s+levels?)?\b/i.exec(text)
    ?? /\b(\d+)\s+levels?\b/i.exec(text);
  if (depth) {
    options.maxDiscoveryDepth = int(depth[1]);
    notes.push(`maxDiscoveryDepth ${options.maxDiscoveryDepth} from "${depth[0].trim()}"`);
  }
  const digitAt = (m: RegExpExecArray) => m.index + m[0].indexOf(m[1]);
  if (limit && !(depth && digitAt(depth) === digitAt(limit))) {
    const n = int(limit[1]);
    if (n >= 1) {
      options.limit = n;
      notes.push(`limit ${n} from "${limit[0].trim()}"`);
    }
  }

  // Delay between pages, in seconds.
  const delay = /\b(?:delay|wait|pause|sleep)(?:\s+(?:of|for))?\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?)\b/i.exec(text)
    ?? /\b(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?)\s+(?:delay\s+)?between\s+(?:requests|pages|scrapes|fetches)\b/i.exec(text);
  if (delay) {
    const value = Number(delay[1]);
    options.delay = /^m/i.test(delay[2]) ? value / 1000 : value;
    notes.push(`delay ${options.delay} s from "${delay[0].trim()}" (forces one page at a time)`);
  }

  // Scope switches.
  if (/\b(?:entire|whole|full|complete)\s+(?:domain|site|website)\b|\ball\s+of\s+the\s+(?:domain|site|website)\b|\beverything\s+on\s+the\s+(?:domain|site|website)\b/i.test(text)) {
    options.crawlEntireDomain = true;
    notes.push('crawlEntireDomain: sibling and parent paths of the start URL are crawled too');
  }
  if (/\bsub-?domains?\b/i.test(lower)) {
    const negated = /\b(?:no|not|without|exclude|excluding|skip|don'?t|never)\s+(?:\w+\s+){0,2}sub-?domains?\b/i.test(lower);
    options.allowSubdomains = !negated;
    notes.push(negated ? 'allowSubdomains false: subdomains are not followed' : 'allowSubdomains: links to subdomains are followed');
  }
  if (/\bexternal\b/i.test(lower)) {
    const negated = /\b(?:no|not|without|exclude|excluding|skip|don'?t|never|stay\s+on)\b[^.;]{0,30}\bexternal\b/i.test(lower);
    options.allowExternalLinks = !negated;
    notes.push(negated ? 'allowExternalLinks false: external links are not followed' : 'allowExternalLinks: links to other sites are followed');
  }

  // Paths and sections.
  const include: string[] = [];
  const exclude: string[] = [];
  for (const s of readSections(scrubbed, start)) {
    const list = s.exclude ? exclude : include;
    if (list.includes(s.pattern)) continue;
    list.push(s.pattern);
    notes.push(`${s.exclude ? 'excludePaths' : 'includePaths'} ${s.pattern} from "${s.said}"`);
  }
  if (include.length > 0) options.includePaths = include;
  if (exclude.length > 0) options.excludePaths = exclude;

  if (include.length > 0) {
    const startPath = start.pathname;
    if (!include.some((p) => new RegExp(p).test(startPath))) {
      notes.push(`the start URL path ${startPath} matches no includePaths pattern: it is not crawled itself, so pages come from the sitemap and the links of included pages`);
    }
    const underStart = (p: string) => startPath === '/' || p.startsWith(`^${startPath.replace(/\/+$/, '')}`);
    if (options.crawlEntireDomain === undefined && !include.every(underStart)) {
      options.crawlEntireDomain = true;
      notes.push(`crawlEntireDomain: an included section is not under the start path ${startPath}`);
    }
  }

  if (notes.length === 0) notes.push('no crawl options recognized in the prompt; the defaults apply');
  return { options, notes };
}
