// 429 from this API itself: the team's per-minute limit of a route group, a rate-limit storm
// injected for the team, or the team's maximum of concurrent browser sessions. Waiting is the
// fix (Retry-After says how long), so no request field is proposed.
import { browserSessions } from '../../browser/session-manager.js';
import type { RouteGroup } from '../../core/routes.js';
import type { Case, Cause, Finding } from '../types.js';

const HINT = /\b429\b|rate.?limit|too many requests|throttl/i;

const GROUP_WORDS: Array<[RegExp, RouteGroup]> = [
  [/batch/i, 'batch_scrape'], [/crawl/i, 'crawl'], [/\bmap\b/i, 'map'], [/search/i, 'search'], [/interact/i, 'interact'],
  [/browser/i, 'browser'], [/scrape/i, 'scrape'],
];

function mentioned(c: Case): boolean {
  const context = JSON.stringify(c.context ?? {});
  return HINT.test(c.question) || /"(?:status|statusCode|code)":\s*"?429/.test(context) || /RATE_LIMIT/i.test(context);
}

export const apiRateLimitCause: Cause = {
  id: 'api_rate_limited',
  hint: HINT,
  applies(c) {
    return mentioned(c);
  },
  async diagnose(c: Case): Promise<Finding> {
    const limits = Object.entries(c.team.rateLimits) as Array<[RouteGroup, number]>;
    const text = `${c.question} ${JSON.stringify(c.context ?? {})}`;
    const named = GROUP_WORDS.find(([re]) => re.test(text))?.[1];
    const storm = c.ctx.faults.get(c.team.id).rateLimitStorm;
    const now = c.ctx.now();
    const sessions = browserSessions(c.ctx);
    const activeSessions = sessions.list(c.team.id, 'browser', 'active').length + sessions.list(c.team.id, 'interact', 'active').length;
    const evidence = `team configuration: ${limits.length ? limits.map(([g, n]) => `${g} ${n}/min`).join(', ') : 'no per-minute limits'}; browser sessions ${activeSessions} active of ${c.team.maxBrowserSessions}${storm && now < storm.until ? '; a rate-limit storm is injected' : ''}`;
    const base = { cause: this.id, fixParameters: null, validation: { tested: false, result: 'skipped' as const, evidence }, feedback: null };

    if (storm && now < storm.until) {
      return { ...base, confidence: 'high', answer: `A rate-limit storm is injected for your team on this local service until ${new Date(storm.until).toISOString()}: every request answers 429 with Retry-After ${storm.retryAfterSec} s. Wait for Retry-After and retry, or remove the fault; no request field changes this.` };
    }
    const limit = named ? c.team.rateLimits[named] : undefined;
    if (limit !== undefined) {
      return { ...base, confidence: 'high', answer: `Your team may send ${limit} ${named} requests per minute; past that the API answers 429 with a Retry-After header (seconds) and the wait in the message. Wait that long before retrying and spread requests over the minute; to fetch many pages use one batch scrape or crawl instead of many single requests. No request field raises the limit.` };
    }
    if ((named === 'browser' || named === 'interact') && activeSessions >= c.team.maxBrowserSessions) {
      return { ...base, confidence: 'high', answer: `Your team already has ${activeSessions} active browser sessions, its maximum (${c.team.maxBrowserSessions}), so a new browser or interact session answers 429. Stop sessions you no longer need (DELETE /v2/browser/{id} or DELETE /v2/scrape/{id}/interact) and retry.` };
    }
    if (limits.length > 0) {
      return { ...base, confidence: 'medium', answer: `Your team has per-minute request limits (${limits.map(([g, n]) => `${g} ${n}`).join(', ')}); a 429 means one was reached. Wait for the Retry-After header's seconds before retrying and spread requests out; no request field raises a limit.` };
    }
    return { ...base, confidence: 'low', answer: 'Your team has no per-minute request limit on this service and no browser-session limit was reached, so the 429 most likely came from the site being scraped, not from this API. Give the job id of the request that failed so its pages can be checked.' };
  },
};
