// Pages (or the start URL) disallowed by robots.txt for the crawl's user agent. The fix is
// ignoreRobotsTxt only for teams enabled for it (an enterprise feature); otherwise the
// answer says so and proposes nothing. A dry crawl tests the fix.
import { DEFAULT_ROBOTS_AGENT } from '../../crawler/fetcher.js';
import { crawlRequestOf, describeJob, note, pathOf, plural } from '../facts.js';
import { dryCrawl, samplePaths } from '../probes/dry-crawl.js';
import type { Case, Cause, Finding } from '../types.js';

const HINT = /robots/i;

export const robotsCause: Cause = {
  id: 'robots_blocked',
  hint: HINT,
  applies(c) {
    const j = c.job;
    if (!j || j.kind !== 'crawl' || j.robotsBlocked.length === 0 || j.options.ignoreRobotsTxt === true) return false;
    const startBlocked = j.robotsBlocked.some((u) => pathOf(u) === pathOf(j.url));
    return startBlocked || j.pages.length === 0 || HINT.test(c.question);
  },
  async diagnose(c: Case): Promise<Finding> {
    const job = c.job!;
    const agent = typeof job.options.robotsUserAgent === 'string' ? job.options.robotsUserAgent : DEFAULT_ROBOTS_AGENT;
    const origin = new URL(job.url!).origin;
    const startBlocked = job.robotsBlocked.some((u) => pathOf(u) === pathOf(job.url));
    const diagnosis = `${startBlocked ? `The start URL ${pathOf(job.url)} is` : `${plural(job.robotsBlocked.length, 'page')} (e.g. ${pathOf(job.robotsBlocked[0])}) are`} disallowed by ${origin}/robots.txt for the user agent ${agent}, so the ${describeJob(job)} did not fetch ${startBlocked ? 'it (nor anything linked from it)' : 'them'}.`;
    if (!c.team.features.ignoreRobotsTxt) {
      return {
        cause: this.id,
        confidence: 'high',
        answer: `${diagnosis} Ignoring robots.txt (ignoreRobotsTxt) is an enterprise option your team is not enabled for, so no request change can crawl these pages; crawl sections robots.txt allows, or ask the site owner to allow ${agent}.`,
        fixParameters: null,
        validation: { tested: false, result: 'skipped', evidence: `job record: robotsBlocked ${samplePaths(job.robotsBlocked)}; team feature ignoreRobotsTxt is off` },
        feedback: null,
      };
    }
    const fix = { ignoreRobotsTxt: true };
    const cap = Math.min(Number(job.options.limit ?? 10), 10);
    note(c, `dry-crawled ${job.url} with ignoreRobotsTxt (up to ${cap} pages)`);
    const dry = await dryCrawl(c, { ...crawlRequestOf(job), ...fix }, { maxPages: cap, maxMs: 15_000 });
    const ok = dry.pages.length > job.pages.length;
    return {
      cause: this.id,
      confidence: ok ? 'high' : 'medium',
      answer: `${diagnosis} Your team is enabled for ignoreRobotsTxt, so set ignoreRobotsTxt to true to crawl them anyway (do so only with the site owner's consent).`,
      fixParameters: fix,
      validation: { tested: true, result: ok ? 'success' : 'failure', evidence: `a dry crawl with ignoreRobotsTxt reached ${plural(dry.pages.length, 'page')}${dry.pages.length ? `: ${samplePaths(dry.pages)}` : ''} (the job had ${job.pages.length})` },
      feedback: null,
    };
  },
};
