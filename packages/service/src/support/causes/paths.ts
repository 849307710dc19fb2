// includePaths/excludePaths that reject the start URL (reference 4.5: "the start URL is also
// checked, so a non-matching start URL may yield 0 pages"). Candidate fixes, in order:
// keep the includes and add the start page itself; widen the includes to the start URL's
// section; drop the excludes that match the start URL. Each is tried with a dry crawl; the
// first that reaches pages (of the originally intended kind, when it can) is proposed.
import type { JobView } from '../../core/jobs.js';
import { PathFilter } from '../../crawler/path-filter.js';
import { closest, crawlRequestOf, describeJob, escapeRegex, note, plural, provisional } from '../facts.js';
import { dryCrawl, samplePaths } from '../probes/dry-crawl.js';
import type { Case, Cause, Finding } from '../types.js';

const HINT = /include|exclude|pattern|regex|0 pages|zero pages|no pages|nothing/i;

function filterOf(options: Record<string, unknown>): PathFilter | undefined {
  try {
    return new PathFilter(options as { includePaths?: string[]; excludePaths?: string[]; regexOnFullURL?: boolean });
  } catch {
    return undefined;
  }
}

function subject(url: URL, options: Record<string, unknown>): string {
  return options.regexOnFullURL === true ? url.href : url.pathname;
}

export const pathsCause: Cause = {
  id: 'paths_exclude_start',
  hint: HINT,
  applies(c) {
    const j = c.job;
    if (!j || j.kind !== 'crawl' || !j.url) return false;
    const includes = (j.options.includePaths as string[] | undefined) ?? [];
    const excludes = (j.options.excludePaths as string[] | undefined) ?? [];
    if (includes.length === 0 && excludes.length === 0) return false;
    const filter = filterOf(j.options);
    return !!filter && !filter.matches(new URL(j.url)) && (j.pages.length <= 1 || HINT.test(c.question));
  },
  async diagnose(c: Case): Promise<Finding> {
    const job = c.job!;
    const start = new URL(job.url!);
    const includes = (job.options.includePaths as string[] | undefined) ?? [];
    const excludes = (job.options.excludePaths as string[] | undefined) ?? [];
    const subj = subject(start, job.options);
    const badExcludes = excludes.filter((p) => new RegExp(p).test(subj));
    const includeMiss = includes.length > 0 && !includes.some((p) => new RegExp(p).test(subj));
    const reasons = [
      ...(includeMiss ? [`matches none of includePaths ${JSON.stringify(includes)}`] : []),
      ...(badExcludes.length ? [`matches excludePaths ${JSON.stringify(badExcludes)}`] : []),
    ];
    const diagnosis = `The start URL path ${subj} ${reasons.join(' and ')}, so the ${describeJob(job)} could not start from it and found ${plural(job.pages.length, 'page')}.`;

    const candidates: Array<Record<string, unknown>> = [];
    const startPattern = `^${escapeRegex(start.pathname.replace(/\/+$/, '') || '/')}${start.pathname === '/' ? '' : '/?'}$`;
    if (includeMiss) {
      candidates.push({ includePaths: [...includes, startPattern] });
      if (start.pathname !== '/') candidates.push({ includePaths: [`^${escapeRegex(start.pathname.replace(/\/+$/, ''))}(/|$)`] });
    }
    if (badExcludes.length) candidates.push({ excludePaths: excludes.filter((p) => !badExcludes.includes(p)) });
    if (includeMiss && badExcludes.length) candidates.push({ ...candidates[0], excludePaths: excludes.filter((p) => !badExcludes.includes(p)) });
    provisional(c, { cause: this.id, confidence: 'medium', answer: `${diagnosis} Change the patterns so the start URL passes them.`, fixParameters: candidates[0] ?? null, validation: null });

    const cap = Math.min(Number(job.options.limit ?? 25), 25);
    const tryFix = async (fix: Record<string, unknown>, wanted: PathFilter | undefined): Promise<Tried | undefined> => {
      const options = { ...crawlRequestOf(job), ...fix };
      const filter = filterOf(options);
      if (!filter?.matches(start)) return undefined;
      note(c, `dry-crawled ${job.url} with ${JSON.stringify(fix)} (up to ${cap} pages)`);
      const dry = await dryCrawl(c, options, { maxPages: cap, maxMs: 15_000 });
      const intended = dry.pages.filter((u) => u !== start.href && (!wanted || wanted.matches(new URL(u))));
      return { fix, pages: dry.pages, intended: intended.length };
    };

    const original = includes.length ? filterOf({ includePaths: includes, regexOnFullURL: job.options.regexOnFullURL }) : undefined;
    let fallback: Tried | undefined;
    for (const fix of candidates) {
      const tried = await tryFix(fix, original);
      if (!tried || tried.pages.length <= job.pages.length) continue;
      if (tried.intended > 0) return found(this.id, diagnosis, tried, cap, job.pages.length, 'high', includes.length > 0 ? ' while the original patterns still select the pages' : '');
      fallback ??= tried;
    }

    // The includes select nothing on this site: maybe a section was named differently
    // ("/documentation" for "/docs"). The site's own sections, from a dry crawl without
    // patterns, are compared with the pattern's first path segment.
    if (includeMiss) {
      const renamed = await renamedSection(c, job, includes, cap);
      if (renamed) {
        const fix = { includePaths: [...renamed.patterns, startPattern] };
        const tried = await tryFix(fix, filterOf({ includePaths: renamed.patterns }));
        if (tried && tried.intended > 0) {
          return found(this.id, `${diagnosis} The site has no ${renamed.from} section; the closest is ${renamed.to}.`, tried, cap, job.pages.length, 'medium', '');
        }
      }
    }

    if (fallback) {
      return {
        cause: this.id,
        confidence: 'low',
        answer: `${diagnosis} With the start URL let through, a dry crawl still found no page that the patterns select, so they do not fit this site: check them against the site's URLs (POST /v2/map).`,
        fixParameters: null,
        validation: { tested: true, result: 'failure', evidence: `a dry crawl with ${JSON.stringify(fallback.fix)} reached only ${samplePaths(fallback.pages)}` },
        feedback: { blockedBy: 'the include patterns select no page of the site', attempted: [...c.trail] },
      };
    }
    return {
      cause: this.id,
      confidence: 'medium',
      answer: `${diagnosis} Loosening the patterns around the start URL did not reach more pages in a dry crawl, so the patterns may not fit this site at all: check them against the site's URLs (POST /v2/map).`,
      fixParameters: null,
      validation: { tested: true, result: 'failure', evidence: `dry crawls with ${candidates.map((f) => JSON.stringify(f)).join(' and ')} reached no more pages` },
      feedback: null,
    };
  },
};

interface Tried {
  fix: Record<string, unknown>;
  pages: string[];
  /** Pages (other than the start URL) the intended patterns select. */
  intended: number;
}

function found(cause: string, diagnosis: string, tried: Tried, cap: number, before: number, confidence: 'high' | 'medium', intent: string): Finding {
  return {
    cause,
    confidence,
    answer: `${diagnosis} Set ${Object.keys(tried.fix).join(' and ')} to ${Object.values(tried.fix).map((v) => JSON.stringify(v)).join(' and ')} so the start URL passes${intent}.`,
    fixParameters: tried.fix,
    validation: { tested: true, result: 'success', evidence: `a dry crawl with the fix (up to ${cap} pages) reached ${plural(tried.pages.length, 'page')}: ${samplePaths(tried.pages)} (the job had ${before})` },
    feedback: null,
  };
}

const commonPrefix = (a: string, b: string): number => {
  let n = 0;
  while (n < a.length && n < b.length && a[n].toLowerCase() === b[n].toLowerCase()) n++;
  return n;
};

/** Include patterns with their first path segment replaced by the site's closest section. */
async function renamedSection(c: Case, job: JobView, includes: string[], cap: number): Promise<{ patterns: string[]; from: string; to: string } | undefined> {
  const { includePaths: _i, excludePaths: _e, ...plain } = crawlRequestOf(job);
  note(c, `dry-crawled ${job.url} without patterns to list the site's sections`);
  const dry = await dryCrawl(c, { ...plain, maxDiscoveryDepth: 1 }, { maxPages: Math.max(cap, 40), maxMs: 10_000 });
  const sections = [...new Set(dry.pages.map((u) => new URL(u).pathname.split('/')[1]).filter(Boolean))];
  let change: { from: string; to: string } | undefined;
  const patterns = includes.map((p) => {
    const m = /^\^?\/([A-Za-z0-9_-]+)/.exec(p);
    if (!m || sections.includes(m[1])) return p;
    const best = sections
      .map((s) => ({ s, shared: commonPrefix(s, m[1]) }))
      .filter((x) => x.shared >= 3)
      .sort((a, b) => b.shared - a.shared || a.s.length - b.s.length)[0]?.s ?? closest(m[1], sections);
    if (!best) return p;
    change ??= { from: `/${m[1]}`, to: `/${best}` };
    return p.replace(`/${m[1]}`, `/${best}`);
  });
  return change ? { patterns, ...change } : undefined;
}
