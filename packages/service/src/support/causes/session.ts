// 410 Gone: a browser session (interact-bound or standalone) was destroyed. A destroyed
// session never comes back; the fix is a new scrape (interact) or a new session (browser),
// with a longer lifetime when the old one ran out of it.
import { pathOf } from '../facts.js';
import type { Case, Cause, Finding } from '../types.js';

function why(reason: string | undefined, ttlSec?: number, activityTtlSec?: number): string {
  switch (reason) {
    case 'deleted':
    case 'stopped':
      return 'it was stopped by a DELETE call';
    case 'browser exited':
      return 'its browser exited (closed over CDP or crashed)';
    case 'ttl expired':
      return `its total lifetime (ttl ${ttlSec ?? '?'} s) ran out`;
    case 'inactive':
      return `it was idle for ${activityTtlSec ?? '?'} s (activityTtl)`;
    case 'service closed':
      return 'the service shut down';
    case undefined:
      return 'it ended';
    default:
      return `it ended (${reason})`;
  }
}

export const sessionCause: Cause = {
  id: 'session_destroyed',
  hint: /\b410\b|destroyed|gone|session (?:ended|expired|closed)|interact/i,
  applies(c) {
    return c.job?.session?.destroyedAt !== undefined;
  },
  async diagnose(c: Case): Promise<Finding> {
    const job = c.job!;
    const s = job.session!;
    const when = new Date(s.destroyedAt!).toISOString();
    const because = why(s.endReason, s.ttlSec, s.activityTtlSec);
    if (job.kind === 'scrape' || job.kind === 'interact') {
      const scrapeId = s.scrapeId ?? job.id;
      const page = job.url ? ` of ${pathOf(job.url)}` : '';
      return {
        cause: this.id,
        confidence: 'high',
        answer: `The interact session of scrape ${scrapeId}${page} was destroyed at ${when} because ${because}, and a destroyed session cannot be reopened, so POST /v2/scrape/${scrapeId}/interact answers 410. Rerun the scrape with the same request, then call interact with the new scrape id (data.metadata.scrapeId); the scrape itself needs no change.`,
        fixParameters: null,
        validation: { tested: false, result: 'skipped', evidence: `session record: destroyed at ${when}, reason "${s.endReason ?? 'unknown'}"` },
        feedback: null,
      };
    }
    // A standalone browser session: a longer lifetime helps when the old one ran out.
    const fix = s.endReason === 'ttl expired' ? { ttl: Math.min(3600, Math.max(60, (s.ttlSec ?? 600) * 2)) }
      : s.endReason === 'inactive' ? { activityTtl: Math.min(3600, Math.max(20, (s.activityTtlSec ?? 300) * 2)) }
      : null;
    return {
      cause: this.id,
      confidence: 'high',
      answer: `Browser session ${job.id} was destroyed at ${when} because ${because}; destroyed sessions answer 410 and cannot be reopened. Create a new session with POST /v2/browser${fix ? ` and a longer ${Object.keys(fix)[0]} (${Object.values(fix)[0]} s)` : ''}.`,
      fixParameters: fix,
      validation: { tested: false, result: 'skipped', evidence: `session record: destroyed at ${when}, reason "${s.endReason ?? 'unknown'}"` },
      feedback: null,
    };
  },
};
