// Pages the site itself answered with an HTTP error (404, 500...). Nothing in the request
// causes or cures that; the answer names the pages and checks one of them again.
import { describeJob, note, pathOf, plural } from '../facts.js';
import type { Case, Cause, Finding } from '../types.js';

function failing(c: Case): Array<{ url: string; status: number }> {
  const j = c.job!;
  const fromErrors = j.errors
    .map((e) => ({ url: e.url, status: Number(/^HTTP_(\d{3})$/.exec(e.code ?? '')?.[1] ?? NaN) }))
    .filter((e) => e.status >= 400 && e.status !== 429);
  const fromPages = j.pages.filter((p) => p.statusCode >= 400 && p.statusCode !== 429).map((p) => ({ url: p.url, status: p.statusCode }));
  return [...fromErrors, ...fromPages];
}

export const pageErrorsCause: Cause = {
  id: 'site_http_errors',
  hint: /\b404\b|\b500\b|\b50[234]\b|not found|broken|server error/i,
  applies(c) {
    return !!c.job && failing(c).length > 0;
  },
  async diagnose(c: Case): Promise<Finding> {
    const job = c.job!;
    const pages = failing(c);
    const codes = [...new Set(pages.map((p) => p.status))].sort();
    const first = pages[0];
    note(c, `fetched ${first.url} again`);
    const now = await c.fetcher.fetch(first.url, { signal: c.timeBudget.within(10_000), maxBytes: 1024 * 1024 }).catch(() => undefined);
    const scraped = job.kind === 'crawl' || job.kind === 'batch_scrape' ? ` The other ${plural(job.pages.filter((p) => p.statusCode < 400).length, 'page')} were scraped normally.` : '';
    return {
      cause: this.id,
      confidence: 'high',
      answer: `${plural(pages.length, 'page')} of the ${describeJob(job)} failed because the site itself answered HTTP ${codes.join('/')} (e.g. ${pages.slice(0, 2).map((p) => `${pathOf(p.url)} ${p.status}`).join(', ')}); nothing in the request causes or fixes that.${scraped} Leave them out with excludePaths if you want a clean error list.`,
      fixParameters: null,
      validation: { tested: true, result: 'skipped', evidence: `GET ${pathOf(first.url)} just now: ${now ? `HTTP ${now.status}` : 'no answer'}` },
      feedback: null,
    };
  },
};
