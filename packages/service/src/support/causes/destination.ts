// 403 DESTINATION_NOT_ALLOWED: the local service fetches loopback hosts only (unless it runs
// with allowNonLoopback); no request field changes that.
import { pathOf } from '../facts.js';
import type { Case, Cause, Finding } from '../types.js';

export const destinationCause: Cause = {
  id: 'destination_not_allowed',
  hint: /loopback|not allowed|destination|\b403\b/i,
  applies(c) {
    return !!c.job && (c.job.errorCode === 'DESTINATION_NOT_ALLOWED' || c.job.errors.some((e) => e.code === 'DESTINATION_NOT_ALLOWED'));
  },
  async diagnose(c: Case): Promise<Finding> {
    const job = c.job!;
    const urls = [...new Set(job.errors.filter((e) => e.code === 'DESTINATION_NOT_ALLOWED').map((e) => e.url))];
    const hosts = [...new Set(urls.map((u) => { try { return new URL(u).host; } catch { return u; } }))];
    return {
      cause: this.id,
      confidence: 'high',
      answer: `This service only fetches loopback destinations (127.0.0.0/8, ::1, localhost, *.localhost), so ${hosts.length ? hosts.join(', ') : 'the target'} ${hosts.length === 1 ? 'was' : 'were'} refused with 403 DESTINATION_NOT_ALLOWED${urls.length ? ` (e.g. ${pathOf(urls[0])})` : ''}. No request parameter changes that: start the service with allowNonLoopback to reach other hosts, or keep the crawl on the local site (allowExternalLinks false).`,
      fixParameters: null,
      validation: { tested: false, result: 'skipped', evidence: `service configuration: allowNonLoopback ${c.ctx.config.allowNonLoopback}` },
      feedback: null,
    };
  },
};
