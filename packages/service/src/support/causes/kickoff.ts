// A job that failed at kickoff: nothing was scraped and the job carries its reason.
import { KICKOFF_FAULT_MESSAGE } from '../../jobs/start.js';
import { describeJob } from '../facts.js';
import type { Case, Cause, Finding } from '../types.js';

export const kickoffCause: Cause = {
  id: 'kickoff_failed',
  applies(c) {
    const j = c.job;
    return !!j && (j.kind === 'crawl' || j.kind === 'batch_scrape') && j.status === 'failed' && !!j.error && j.pages.length === 0 && j.errors.length === 0;
  },
  async diagnose(c: Case): Promise<Finding> {
    const job = c.job!;
    const injected = job.error === KICKOFF_FAULT_MESSAGE;
    return {
      cause: this.id,
      confidence: injected ? 'high' : 'medium',
      answer: `The ${describeJob(job)} failed before any page was scraped: "${job.error}".${injected ? ' This is fault injection configured for your team on this local service (failKickoffPattern), not a problem with the request; remove the fault or rerun with another URL.' : ' Rerun the same request; if it fails again at once, the start URL or an option is refused by the service.'}`,
      fixParameters: null,
      validation: { tested: false, result: 'skipped', evidence: `job record: status failed, error "${job.error}"` },
      feedback: null,
    };
  },
};
