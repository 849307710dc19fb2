// A job id that is not (or no longer) readable in the caller's team. The team's own
// activity log tells an expired job (404 after its results expired: rerun it) from an
// unknown one; a time-ordered (v7) id older than the retention time probably expired too.
// Nothing here reads another team's records, so another team's id looks unknown.
import type { ActivityRecord } from '../../core/activity.js';
import type { Case, Finding } from '../types.js';

function activityEntry(c: Case, id: string): ActivityRecord | undefined {
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const res = c.ctx.activity.list(c.team.id, { limit: 100, cursor });
    const hit = res.data.find((r) => r.id === id);
    if (hit) return hit;
    if (!res.cursor) return undefined;
    cursor = res.cursor;
  }
  return undefined;
}

/** Creation time of a UUID v7 (ms), else undefined. */
export function uuidV7Time(id: string): number | undefined {
  const hex = id.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex) || hex[12] !== '7') return undefined;
  return parseInt(hex.slice(0, 12), 16);
}

function duration(ms: number): string {
  if (ms >= 3_600_000) return `${Math.round(ms / 3_600_000)} hours`;
  if (ms >= 60_000) return `${Math.round(ms / 60_000)} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}

export function missingFinding(c: Case, id: string): Finding {
  const ttl = c.ctx.config.jobTtlMs;
  const entry = activityEntry(c, id);
  c.trail.push(`looked for ${id} in the team's jobs, scrapes, sessions and activity log`);
  if (entry && !c.ctx.jobInspector && (entry.endpoint === 'crawl' || entry.endpoint === 'batch_scrape')) {
    // Without the jobs module's records, a live job and an expired one look the same.
    return {
      cause: 'jobs_unreadable',
      confidence: 'low',
      answer: `The ${entry.endpoint === 'crawl' ? 'crawl' : 'batch scrape'} ${id} of ${entry.target} is in your team's activity, but this service's support cannot read crawl and batch job records, so it cannot tell what happened to it. Read GET /v2/${entry.endpoint === 'crawl' ? 'crawl' : 'batch/scrape'}/${id} and its /errors, and ask again with what they show in context.`,
      fixParameters: null,
      validation: null,
      feedback: { blockedBy: 'crawl and batch job records are not readable by support on this service', attempted: [...c.trail] },
    };
  }
  if (entry) {
    const what = entry.endpoint === 'batch_scrape' ? 'batch scrape' : entry.endpoint;
    return {
      cause: 'results_expired',
      confidence: 'high',
      answer: `The ${what} ${id} of ${entry.target} (started ${new Date(entry.createdAt).toISOString()}) is no longer stored: results are kept for ${duration(ttl)} after a job finishes, then every read answers 404 "Job not found". Run the same request again and save its results before the expiresAt it reports; no parameter needs to change.`,
      fixParameters: null,
      validation: { tested: false, result: 'skipped', evidence: `activity log: ${entry.endpoint} ${id} started ${new Date(entry.createdAt).toISOString()}; no job, scrape or session record remains` },
      feedback: null,
    };
  }
  const born = uuidV7Time(id);
  if (born !== undefined && born < c.ctx.now() - ttl) {
    return {
      cause: 'results_expired',
      confidence: 'medium',
      answer: `No job ${id} is stored for your team; its id says it was created ${new Date(born).toISOString()}, longer ago than results are kept (${duration(ttl)}), so it most likely expired. Run the request again and save its results before expiresAt.`,
      fixParameters: null,
      validation: { tested: false, result: 'skipped', evidence: `the id's timestamp is ${new Date(born).toISOString()}; nothing with this id is in your team's records or its 24 h activity log` },
      feedback: null,
    };
  }
  return {
    cause: 'job_not_found',
    confidence: 'low',
    answer: `No job ${id} was found in your team's scope: it is not one of your team's crawls, batch scrapes, scrapes or browser sessions, nor in its activity of the last 24 hours. Check the id (and that the API key belongs to the team that started the job), or ask again with the id of one of your own jobs.`,
    fixParameters: null,
    validation: null,
    feedback: { blockedBy: `job ${id} is not in the caller's team's scope`, attempted: [...c.trail] },
  };
}
