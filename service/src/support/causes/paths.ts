// includePaths/excludePaths that reject the start URL (reference 4.5: "the start URL is also
// checked, so a non-matching start URL may yield 0 pages"). Candidate fixes, in order:
// keep the includes and add the start page itself; widen the includes to the start URL's
// section; drop the excludes that match the start URL. Each is tried with a dry crawl; the
// first that reaches pages (of the originally intended kind, when it can) is proposed.
import { PathFilter } from '../../crawler/path-filter.js';
import { crawlRequestOf, describeJob, escapeRegex, note, plural, provisional } from '../facts.js';
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

    const original = includes.length ? new PathFilter({ includePaths: includes, regexOnFullURL: job.options.regexOnFullURL as boolean | undefined }) : undefined;
    const cap = Math.min(Number(job.options.limit ?? 25), 25);
    let best: { fix: Record<string, unknown>; pages: string[] } | undefined;
    for (const fix of candidates) {
      const options = { ...crawlRequestOf(job), ...fix };
      const filter = filterOf(options);
      if (!filter?.matches(start)) continue;
      note(c, `dry-crawled ${job.url} with ${JSON.stringify(fix)} (up to ${cap} pages)`);
      const dry = await dryCrawl(c, options, { maxPages: cap, maxMs: 15_000 });
      const intended = original ? dry.pages.filter((u) => original.matches(new URL(u))) : dry.pages;
      if (intended.length > 0 && dry.pages.length > job.pages.length) {
        best = { fix, pages: dry.pages };
        break;
      }
      best ??= dry.pages.length > job.pages.length ? { fix, pages: dry.pages } : undefined;
    }
    if (!best) {
      return {
        cause: this.id,
        confidence: 'medium',
        answer: `${diagnosis} Loosening the patterns around the start URL did not reach more pages in a dry crawl, so the patterns may not fit this site at all: check them against the site's URLs (POST /v2/map).`,
        fixParameters: null,
        validation: { tested: true, result: 'failure', evidence: `dry crawls with ${candidates.map((f) => JSON.stringify(f)).join(' and ')} reached no more pages` },
        feedback: null,
      };
    }
    const [field] = Object.keys(best.fix);
    return {
      cause: this.id,
      confidence: 'high',
      answer: `${diagnosis} Set ${Object.keys(best.fix).join(' and ')} to ${Object.values(best.fix).map((v) => JSON.stringify(v)).join(' and ')} so the start URL passes${field === 'includePaths' && (best.fix.includePaths as string[]).length > includes.length ? ' while the original patterns still select the pages' : ''}.`,
      fixParameters: best.fix,
      validation: { tested: true, result: 'success', evidence: `a dry crawl with the fix (up to ${cap} pages) reached ${plural(best.pages.length, 'page')}: ${samplePaths(best.pages)} (the job had ${job.pages.length})` },
      feedback: null,
    };
  },
};
