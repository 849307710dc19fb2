// crawlEntireDomain needed: the start URL sits under a path (/blog/post-1) while the pages
// wanted are its siblings or parents, which a crawl only follows with crawlEntireDomain.
// Tested with a dry crawl: it must reach more pages than the job did.
import { crawlRequestOf, describeJob, note, pathOf, plural, provisional } from '../facts.js';
import { dryCrawl, samplePaths } from '../probes/dry-crawl.js';
import type { Case, Cause, Finding } from '../types.js';

export const scopeCause: Cause = {
  id: 'crawl_entire_domain_needed',
  hint: /sibling|parent|entire|whole|only (?:one|1|the start) page|single page|just one page/i,
  applies(c) {
    const j = c.job;
    if (!j || j.kind !== 'crawl' || !j.url || j.status === 'scraping' || j.options.crawlEntireDomain === true) return false;
    return new URL(j.url).pathname !== '/' && j.pages.length <= 2;
  },
  async diagnose(c: Case): Promise<Finding | undefined> {
    const job = c.job!;
    const fix = { crawlEntireDomain: true };
    const cap = Math.min(Number(job.options.limit ?? 25), 25);
    provisional(c, {
      cause: this.id, confidence: 'low', fixParameters: fix, validation: null,
      answer: `The ${describeJob(job)} only follows links below ${pathOf(job.url)}/; if the pages you want are its siblings, set crawlEntireDomain to true (not tested: the time ran out).`,
    });
    note(c, `dry-crawled ${job.url} with crawlEntireDomain (up to ${cap} pages)`);
    const dry = await dryCrawl(c, { ...crawlRequestOf(job), ...fix }, { maxPages: cap, maxMs: 15_000 });
    if (dry.pages.length <= job.pages.length) return undefined;
    const path = pathOf(job.url);
    const parent = path.replace(/\/[^/]*\/?$/, '') || '/';
    return {
      cause: this.id,
      confidence: 'high',
      answer: `The ${describeJob(job)} only follows links below ${path}/, but the pages linked from it are its siblings and parents (like ${parent}), which are out of scope by default. Set crawlEntireDomain to true${parent !== '/' ? ` (with includePaths ["^${parent}(/|$)"] if you want to stay in ${parent})` : ''}.`,
      fixParameters: fix,
      validation: { tested: true, result: 'success', evidence: `a dry crawl with crawlEntireDomain (up to ${cap} pages) reached ${plural(dry.pages.length, 'page')}: ${samplePaths(dry.pages)} (the job had ${job.pages.length})` },
      feedback: null,
    };
  },
};
