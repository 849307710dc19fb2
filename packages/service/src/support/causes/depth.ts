// maxDiscoveryDepth too small: the crawl stopped following links early. Depths one to three
// above the job's are dry-crawled; the smallest that reaches clearly more pages (or fills
// the dry crawl) is proposed.
import { crawlRequestOf, describeJob, note, plural, provisional } from '../facts.js';
import { dryCrawl, samplePaths } from '../probes/dry-crawl.js';
import type { Case, Cause, Finding } from '../types.js';

export const depthCause: Cause = {
  id: 'depth_too_small',
  hint: /depth|deep|levels?|few pages|only \d+ pages?|missing pages|not all pages/i,
  applies(c) {
    const j = c.job;
    if (!j || j.kind !== 'crawl' || j.status !== 'completed' || typeof j.options.maxDiscoveryDepth !== 'number') return false;
    return j.pages.length + j.errors.length < Number(j.options.limit ?? Infinity);
  },
  async diagnose(c: Case): Promise<Finding | undefined> {
    const job = c.job!;
    const depth = job.options.maxDiscoveryDepth as number;
    const cap = Math.min(Number(job.options.limit ?? 50), 50);
    provisional(c, {
      cause: this.id, confidence: 'low', fixParameters: null, validation: null,
      answer: `The ${describeJob(job)} used maxDiscoveryDepth ${depth}, which stops link discovery early; larger depths were still being tried when the time ran out.`,
    });
    let found: { depth: number; pages: string[] } | undefined;
    for (let d = depth + 1; d <= depth + 3; d++) {
      note(c, `dry-crawled ${job.url} with maxDiscoveryDepth ${d} (up to ${cap} pages)`);
      const dry = await dryCrawl(c, { ...crawlRequestOf(job), maxDiscoveryDepth: d }, { maxPages: cap, maxMs: 15_000 });
      if (dry.pages.length > job.pages.length) found = { depth: d, pages: dry.pages };
      if (dry.capped || dry.pages.length >= Math.max(2 * job.pages.length, job.pages.length + 3)) break;
    }
    if (!found) return undefined;
    return {
      cause: this.id,
      confidence: 'high',
      answer: `The ${describeJob(job)} used maxDiscoveryDepth ${depth}, so it stopped following links ${depth === 0 ? 'at the start page (depth 0 reads no links beyond it and the sitemap)' : `${depth} link${depth === 1 ? '' : 's'} away from the start page`}. Set maxDiscoveryDepth to ${found.depth} to reach the pages linked further down.`,
      fixParameters: { maxDiscoveryDepth: found.depth },
      validation: { tested: true, result: 'success', evidence: `a dry crawl with maxDiscoveryDepth ${found.depth} (up to ${cap} pages) reached ${plural(found.pages.length, 'page')}: ${samplePaths(found.pages)} (the job had ${job.pages.length})` },
      feedback: null,
    };
  },
};
