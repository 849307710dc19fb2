// The diagnosis: find the subject, then try the known causes in order (those the question
// hints at first); the first that fits and confirms itself answers. Without a fitting cause
// the answer says so, with what was tried (feedback).
import { apiRateLimitCause } from './causes/api-rate-limit.js';
import { creditsCause } from './causes/credits.js';
import { depthCause } from './causes/depth.js';
import { destinationCause } from './causes/destination.js';
import { invalidRequestCause } from './causes/invalid-request.js';
import { jsContentCause } from './causes/js-content.js';
import { kickoffCause } from './causes/kickoff.js';
import { limitCause } from './causes/limit.js';
import { missingFinding } from './causes/missing.js';
import { pageErrorsCause } from './causes/page-errors.js';
import { pathsCause } from './causes/paths.js';
import { robotsCause } from './causes/robots.js';
import { scopeCause } from './causes/scope.js';
import { sessionCause } from './causes/session.js';
import { siteRateLimitCause } from './causes/site-rate-limit.js';
import { timeoutCause } from './causes/timeout.js';
import { describeJob, note } from './facts.js';
import { findSubject } from './subject.js';
import type { Case, Cause, Finding } from './types.js';

/** Known causes, most specific first. */
export const CAUSES: readonly Cause[] = [
  sessionCause, creditsCause, invalidRequestCause, destinationCause, kickoffCause, timeoutCause, siteRateLimitCause,
  apiRateLimitCause, robotsCause, pathsCause, scopeCause, depthCause, limitCause, jsContentCause, pageErrorsCause,
];

/** Causes that can answer without a job (account state, the failed request in the context). */
const ACCOUNT_CAUSES: readonly Cause[] = [creditsCause, invalidRequestCause, apiRateLimitCause];

function ordered(c: Case, causes: readonly Cause[]): Cause[] {
  const hinted = causes.filter((x) => x.hint?.test(c.question));
  return [...hinted, ...causes.filter((x) => !hinted.includes(x))];
}

async function firstFinding(c: Case, causes: readonly Cause[]): Promise<Finding | undefined> {
  for (const cause of ordered(c, causes)) {
    if (c.timeBudget.exhausted) return undefined;
    if (!cause.applies(c)) continue;
    note(c, `checked cause: ${cause.id}`);
    const finding = await cause.diagnose(c);
    if (finding) return finding;
  }
  return undefined;
}

export async function investigate(c: Case, jobId?: string): Promise<Finding> {
  const subject = findSubject(c, jobId);
  if ('missing' in subject) {
    // An id out of scope may still come with an account-level problem the question is about.
    return (await firstFinding(c, ACCOUNT_CAUSES.filter((x) => x.hint?.test(c.question)))) ?? missingFinding(c, subject.missing);
  }
  if ('job' in subject) {
    c.job = subject.job;
    note(c, `read the ${describeJob(subject.job)}`);
  } else {
    note(c, "found no failed job among the team's recent jobs");
  }
  const finding = await firstFinding(c, c.job ? CAUSES : ACCOUNT_CAUSES);
  if (finding) return finding;
  if (c.job) {
    return {
      cause: 'unknown',
      confidence: 'low',
      answer: `The ${describeJob(c.job)} matches none of the known failure causes (timeouts, JavaScript content, robots.txt, include/exclude patterns, depth, limit, scope, credits, rate limits, invalid options, expired results, destroyed sessions). Describe what you expected and what you got, or ask with the id of the request that failed.`,
      fixParameters: null,
      validation: null,
      feedback: { blockedBy: 'no known failure cause matches this job', attempted: [...c.trail] },
    };
  }
  return {
    cause: 'no_subject',
    confidence: 'low',
    answer: "No failed job was found to diagnose: your team has no recent job with errors, and the question names no job id or URL. Ask again with the jobId of the request that failed (or the failed request's body in context.request).",
    fixParameters: null,
    validation: null,
    feedback: { blockedBy: 'no job to diagnose in the caller\'s team', attempted: [...c.trail] },
  };
}
