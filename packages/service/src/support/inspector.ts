// JobInspector over the service's records: crawl and batch jobs (the jobs module's store,
// when given), single scrapes (scrape records) and browser sessions (standalone and bound
// to a scrape by interact). "Recent" comes from the activity log, which names every job a
// team started in the last 24 hours. Views carry no page content.
import type { ActivityRecord } from '../core/activity.js';
import type { JobInspector, JobView } from '../core/jobs.js';
import type { ScrapeRecord } from '../core/scrape.js';
import type { ServiceContext } from '../core/service.js';
import { browserSessions } from '../browser/session-manager.js';
import type { BrowserSession } from '../browser/session.js';
import type { Job } from '../jobs/types.js';

/** The part of the jobs module's JobStore the inspector reads. */
export interface JobLookup {
  get(id: string): Job | undefined;
}

export interface InspectorSources {
  ctx: ServiceContext;
  /** The jobs module's store (JobsRuntime.store); crawl and batch jobs are invisible without it. */
  jobs?: JobLookup;
}

/** Views list at most this many pages and errors of a job (support needs a sample, not all). */
const MAX_LISTED = 500;

const contentChars = (doc: { markdown?: string; html?: string; rawHtml?: string } | null | undefined): number =>
  (doc?.markdown ?? doc?.html ?? doc?.rawHtml ?? '').trim().length;

/** The HTTP status and code a failed scrape answered, from the record or its message. */
export function scrapeFailure(record: Pick<ScrapeRecord, 'error' | 'errorStatus' | 'errorCode'>): { status?: number; code?: string } {
  if (record.errorCode || record.errorStatus) return { status: record.errorStatus, code: record.errorCode };
  const message = record.error ?? '';
  if (/timed out|timeout/i.test(message)) return { status: 408, code: 'SCRAPE_TIMEOUT' };
  if (/needs an AI model/i.test(message)) return { status: 400, code: 'MODEL_REQUIRED' };
  if (/needs the browser engine|browser not configured/i.test(message)) return { status: 400, code: 'BROWSER_REQUIRED' };
  if (/Destination not allowed|not a loopback/i.test(message)) return { status: 403, code: 'DESTINATION_NOT_ALLOWED' };
  if (/insufficient credits/i.test(message)) return { status: 402, code: 'INSUFFICIENT_CREDITS' };
  return message ? { status: 500, code: 'SCRAPE_ALL_ENGINES_FAILED' } : {};
}

export function jobView(job: Job): JobView {
  return {
    id: job.id,
    kind: job.kind,
    teamId: job.team.id,
    url: job.url,
    status: job.status,
    createdAt: job.createdAt,
    ...(job.completedAt !== undefined ? { completedAt: job.completedAt } : {}),
    options: { url: job.url, ...job.options },
    ...(job.error !== undefined ? { error: job.error } : {}),
    pages: job.documents.slice(0, MAX_LISTED).map(({ doc }) => ({
      url: doc.metadata.sourceURL,
      statusCode: doc.metadata.statusCode,
      contentChars: contentChars(doc),
    })),
    errors: job.errors.slice(0, MAX_LISTED).map((e) => ({ url: e.url, ...(e.code !== undefined ? { code: e.code } : {}), error: e.error })),
    robotsBlocked: job.robotsBlocked.slice(0, MAX_LISTED),
    creditsUsed: job.creditsUsed,
  };
}

function sessionInfo(s: BrowserSession): NonNullable<JobView['session']> {
  return {
    ttlSec: Math.round((s.expiresAt - s.createdAt) / 1000),
    activityTtlSec: Math.round(s.activityTtlMs / 1000),
    ...(s.end ? { destroyedAt: s.end.destroyedAt, endReason: s.end.reason } : {}),
    ...(s.jobId ? { scrapeId: s.jobId } : {}),
  };
}

export function scrapeView(record: ScrapeRecord, session?: BrowserSession): JobView {
  const failure = record.document ? {} : scrapeFailure(record);
  const doc = record.document;
  return {
    id: record.id,
    kind: 'scrape',
    teamId: record.teamId,
    url: record.url,
    status: doc ? 'completed' : 'failed',
    createdAt: record.createdAt,
    options: { ...record.options, url: record.url },
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(failure.code ? { errorCode: failure.code } : {}),
    pages: doc ? [{ url: doc.metadata.sourceURL ?? record.url, statusCode: doc.metadata.statusCode, contentChars: contentChars(doc) }] : [],
    errors: doc ? [] : [{ url: record.url, ...(failure.code ? { code: failure.code } : {}), error: record.error ?? 'Scrape failed' }],
    robotsBlocked: [],
    creditsUsed: doc ? Number(doc.metadata.creditsUsed ?? 1) : 0,
    ...(session ? { session: sessionInfo(session) } : {}),
  };
}

function browserView(s: BrowserSession): JobView {
  return {
    id: s.id,
    kind: s.kind,
    teamId: s.teamId,
    status: s.status,
    createdAt: s.createdAt,
    ...(s.end ? { completedAt: s.end.destroyedAt, error: `session ended: ${s.end.reason}` } : {}),
    options: {},
    pages: [],
    errors: [],
    robotsBlocked: [],
    creditsUsed: s.end?.creditsBilled ?? 0,
    session: sessionInfo(s),
  };
}

export function createJobInspector(sources: InspectorSources): JobInspector {
  const { ctx } = sources;
  const sessions = () => browserSessions(ctx);
  /** The newest interact session bound to a scrape. */
  const interactOf = (record: ScrapeRecord): BrowserSession | undefined =>
    sessions().list(record.teamId, 'interact').filter((s) => s.jobId === record.id).sort((a, b) => b.createdAt - a.createdAt)[0];

  const get = (id: string): JobView | undefined => {
    const job = sources.jobs?.get(id);
    if (job) return jobView(job);
    const record = ctx.scrapes.get(id);
    if (record) return scrapeView(record, interactOf(record));
    const session = sessions().get(id);
    return session ? browserView(session) : undefined;
  };

  return {
    get,
    recent(teamId, n) {
      const seen = new Set<string>();
      const views: JobView[] = [];
      let cursor: string | undefined;
      // Activity pages, newest first, until n views are found or the 24 h window ends.
      for (let pages = 0; views.length < n && pages < 20; pages++) {
        const page: { data: ActivityRecord[]; cursor: string | null } = ctx.activity.list(teamId, { limit: 100, cursor });
        for (const entry of page.data) {
          if (seen.has(entry.id)) continue;
          seen.add(entry.id);
          const view = get(entry.id);
          if (view && view.teamId === teamId) views.push(view);
          if (views.length >= n) break;
        }
        if (!page.cursor) break;
        cursor = page.cursor;
      }
      return views.sort((a, b) => b.createdAt - a.createdAt);
    },
  };
}

/** The context's inspector, or one over scrape records and sessions only. */
export function inspectorOf(ctx: ServiceContext): JobInspector {
  return ctx.jobInspector ?? createJobInspector({ ctx });
}
