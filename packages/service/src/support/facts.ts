// Small readings of a job view shared by the causes, and the fix shapes per job kind.
import type { JobView } from '../core/jobs.js';
import type { Case, Finding } from './types.js';

export const isCrawl = (job?: JobView): job is JobView => job?.kind === 'crawl';

export function pathOf(url: string | undefined): string {
  if (!url) return '';
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

export const secs = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The scrape options a job used: a crawl's scrapeOptions, a batch's or scrape's own options. */
export function scrapeOptionsOf(job: JobView): Record<string, unknown> {
  if (job.kind === 'crawl') return { ...((job.options.scrapeOptions as Record<string, unknown> | undefined) ?? {}) };
  const { url: _url, urls: _urls, webhook: _w, maxConcurrency: _m, ignoreInvalidURLs: _i, zeroDataRetention: _z, ...rest } = job.options;
  return rest;
}

/**
 * fixParameters that change one scrape option: nested in `scrapeOptions` for a crawl (the
 * whole object, so a shallow merge into the request keeps its other members), top-level for
 * a scrape or a batch scrape.
 */
export function scrapeOptionFix(job: JobView, changes: Record<string, unknown>): Record<string, unknown> {
  if (job.kind === 'crawl') return { scrapeOptions: { ...scrapeOptionsOf(job), ...changes } };
  return { ...changes };
}

/** A request with fixParameters applied: shallow merge; a null value removes the field. */
export function applyFix(request: Record<string, unknown>, fix: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = { ...request };
  for (const [key, value] of Object.entries(fix ?? {})) {
    if (value === null) delete out[key];
    else out[key] = value;
  }
  return out;
}

/** How the job ended, in a few words: "crawl of /docs (completed, 0 pages, 2 errors)". */
export function describeJob(job: JobView): string {
  const what = job.kind === 'batch_scrape' ? 'batch scrape' : job.kind === 'interact' ? 'interact session' : job.kind === 'browser' ? 'browser session' : job.kind;
  const target = job.url ? ` of ${job.url}` : '';
  const counts = job.kind === 'crawl' || job.kind === 'batch_scrape'
    ? `, ${plural(job.pages.length, 'page')}, ${plural(job.errors.length, 'error')}${job.robotsBlocked.length ? `, ${job.robotsBlocked.length} blocked by robots.txt` : ''}`
    : '';
  return `${what} ${job.id}${target} (${job.status}${counts})`;
}

export function note(c: Case, step: string): void {
  c.trail.push(step);
}

/** Records the best conclusion so far, for the 504 partial envelope. */
export function provisional(c: Case, finding: Omit<Finding, 'feedback'>): void {
  c.partial = { ...finding, feedback: null };
}

/** Options of a crawl as a request body again (url included), for dry crawls and fixes. */
export function crawlRequestOf(job: JobView): Record<string, unknown> {
  return { ...job.options, url: job.url };
}

/** Escapes a path for a regex. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (x[i - 1] === y[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[y.length];
}

/** The closest valid name, if close enough to be a typo. */
export function closest(value: string, options: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of options) {
    const d = distance(value, o);
    if (d < bestD) {
      best = o;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(value.length / 3)) ? best : undefined;
}
