// 402 Insufficient credits: the team's credits for the billing period are spent. No request
// field changes that, so there is no fix; the answer says where the credits stand.
import { describeJob, plural } from '../facts.js';
import type { Case, Cause, Finding } from '../types.js';

const HINT = /\b402\b|credit|insufficient|quota|billing|out of (?:credits|balance)|payment/i;

export const creditsCause: Cause = {
  id: 'insufficient_credits',
  hint: HINT,
  applies(c) {
    const remaining = c.ctx.ledger.remaining(c.team.id);
    const ranOut = c.job?.errors.some((e) => e.code === 'INSUFFICIENT_CREDITS') ?? false;
    if (ranOut) return true;
    if (remaining > 0) return false;
    // With no credits left, a 402 is what any spending request gets.
    return !c.job || HINT.test(c.question) || c.job.status === 'completed';
  },
  async diagnose(c: Case): Promise<Finding> {
    const usage = c.ctx.ledger.usage(c.team.id);
    const end = usage.billingPeriodEnd.slice(0, 10);
    const job = c.job;
    const stopped = job?.errors.some((e) => e.code === 'INSUFFICIENT_CREDITS')
      ? ` The ${describeJob(job)} stopped when the credits ran out.`
      : job && (job.kind === 'crawl' || job.kind === 'batch_scrape') ? ` The ${describeJob(job)} was limited by the credits left when it started.` : '';
    return {
      cause: this.id,
      confidence: 'high',
      answer: `Your team has ${plural(Math.max(0, Math.floor(usage.remainingCredits)), 'credit')} left of its ${usage.planCredits} for the billing period ending ${end}, so every request that spends credits (scrape, crawl, batch scrape, map, search, browser) answers 402 Insufficient credits.${stopped} No request parameter can change this: wait for the next period (${end}) or have credits added to the team; support ask and status reads stay free.`,
      fixParameters: null,
      validation: { tested: false, result: 'skipped', evidence: `credit ledger: ${usage.remainingCredits} of ${usage.planCredits} credits remaining in the period ${usage.billingPeriodStart} to ${usage.billingPeriodEnd}` },
      feedback: null,
    };
  },
};
