// What a question is about: the job named by jobId; else a job id or URL in the question or
// its context; else the team's most recent failed job. Only the caller's team's jobs are in
// scope: another team's job id is treated exactly like an unknown one.
import type { JobView } from '../core/jobs.js';
import type { Case } from './types.js';

export type Subject = { job: JobView } | { missing: string } | { none: true };

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const URL_RE = /\bhttps?:\/\/[^\s"'<>),]+/gi;

function normalizeUrl(url: string): string {
  try {
    const u = new URL(url.replace(/[.;:!?]+$/, ''));
    u.hash = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return url;
  }
}

function textOf(c: Case): string {
  return `${c.question}\n${c.context ? JSON.stringify(c.context) : ''}`;
}

/** Something went wrong with it: a failure, page errors, blocked pages, an empty result or an ended session. */
export function looksFailed(v: JobView): boolean {
  return v.status === 'failed'
    || v.errors.length > 0
    || v.robotsBlocked.length > 0
    || ((v.kind === 'crawl' || v.kind === 'batch_scrape') && v.status === 'completed' && v.pages.length === 0)
    || v.pages.some((p) => p.statusCode >= 400 || p.contentChars < 200)
    || v.session?.destroyedAt !== undefined;
}

export function findSubject(c: Case, jobId?: string): Subject {
  const inScope = (id: string) => {
    const view = c.inspector.get(id);
    return view && view.teamId === c.team.id ? view : undefined;
  };
  if (jobId) {
    const job = inScope(jobId);
    return job ? { job } : { missing: jobId };
  }
  const ids = [...new Set(textOf(c).match(UUID) ?? [])].map((s) => s.toLowerCase());
  for (const id of ids) {
    const job = inScope(id);
    if (job) return { job };
  }
  if (ids.length > 0) return { missing: ids[0] };

  const recent = c.inspector.recent(c.team.id, 50);
  const urls = [...new Set((textOf(c).match(URL_RE) ?? []).map(normalizeUrl))];
  for (const url of urls) {
    const touches = (v: JobView) => [v.url, ...v.pages.map((p) => p.url), ...v.errors.map((e) => e.url), ...v.robotsBlocked]
      .some((u) => u !== undefined && normalizeUrl(u) === url);
    const job = recent.find((v) => touches(v) && looksFailed(v)) ?? recent.find(touches);
    if (job) return { job };
  }
  const failed = recent.find(looksFailed);
  return failed ? { job: failed } : { none: true };
}
