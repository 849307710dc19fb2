// The crawl stopped at its `limit` while the site has more pages in scope. A dry crawl with
// a higher cap counts them; the proposed limit is that count (or the cap when it filled).
import { crawlRequestOf, describeJob, note, plural, provisional } from '../facts.js';
import { dryCrawl, samplePaths } from '../probes/dry-crawl.js';
import type { Case, Cause, Finding } from '../types.js';

const MAX_COUNT = 500;

export const limitCause: Cause = {
  id: 'limit_reached',
  hint: /limit|only \d+ pages?|few pages|more pages|missing pages|not all pages|stopped/i,
  applies(c) {
    const j = c.job;
    if (!j || j.kind !== 'crawl' || j.status !== 'completed' || typeof j.options.limit !== 'number') return false;
    return j.pages.length + j.errors.length >= j.options.limit;
  },
  async diagnose(c: Case): Promise<Finding | undefined> {
    const job = c.job!;
    const limit = job.options.limit as number;
    const cap = Math.min(Math.max(limit * 4, 50), MAX_COUNT);
    provisional(c, {
      cause: this.id, confidence: 'low', fixParameters: null, validation: null,
      answer: `The ${describeJob(job)} stopped at its limit of ${limit} pages; whether the site has more pages in scope was still being counted when the time ran out. Raise limit if you expected more pages.`,
    });
    note(c, `dry-crawled ${job.url} with the same scope (up to ${cap} pages) to count the pages in scope`);
    const dry = await dryCrawl(c, { ...crawlRequestOf(job), limit: cap }, { maxPages: cap, maxMs: 25_000 });
    if (dry.pages.length <= limit) return undefined;
    const proposed = dry.capped || dry.timedOut ? cap : dry.pages.length + dry.failed.length;
    const remaining = Math.floor(c.ctx.ledger.remaining(c.team.id));
    const credits = remaining < proposed ? ` Your team has ${remaining} credits left, so the crawl will stop there unless credits are added.` : '';
    return {
      cause: this.id,
      confidence: 'high',
      answer: `The ${describeJob(job)} stopped at its limit of ${limit} pages, but ${dry.capped ? `at least ${cap}` : `${dry.timedOut ? 'at least ' : ''}${dry.pages.length + dry.failed.length}`} pages are in scope${dry.failed.length ? ` (${dry.failed.length} of them fail at the site)` : ''}. Set limit to ${proposed}.${credits}`,
      fixParameters: { limit: proposed },
      validation: { tested: true, result: 'success', evidence: `a dry crawl with the same options ${dry.capped ? `filled its cap of ${cap} pages` : `found ${plural(dry.pages.length, 'page')} in scope${dry.timedOut ? ' before it ran out of time' : ''}`}: ${samplePaths(dry.pages)}` },
      feedback: null,
    };
  },
};
