// Collectors: page a job's results into the store. The cursor (skip) is heartbeated after each
// stored page, so a retry or a restarted worker resumes there; appends are idempotent by
// job id + URL, so a page stored just before a crash is not stored twice.
import { WebDataApiError } from 'webdata-client';
import type { JobErrorsResponse, ScrapeDocument } from 'webdata-contract';
import type { DocumentInput } from 'webdata-storage';
import { refOf } from 'webdata-storage';
import { ChangeTracker } from './changes.js';
import { currentScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import { beatingWith, RobotsBook } from './robots.js';
import type { CollectInput, CollectResult, JobStatus } from './types.js';

interface Cursor {
  skip: number;
  pages: number;
  written: number;
  /** Documents dropped because robots.txt disallows them (robots check on). */
  robots?: number;
}

/** A job's errors, or none (and `missing()` called) when this service has no errors route. */
async function jobErrorsOrNone(read: () => Promise<JobErrorsResponse>, missing: () => void): Promise<Pick<JobErrorsResponse, 'errors' | 'robotsBlocked'>> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof WebDataApiError) || err.kind !== 'not_available') throw err;
    missing();
    return { errors: [], robotsBlocked: [] };
  }
}

export function toDocumentInput(kind: string, doc: ScrapeDocument): DocumentInput | undefined {
  const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
  const url = (metadata.sourceURL ?? metadata.url) as string | undefined;
  if (!url) return undefined;
  const { metadata: _m, ...content } = doc;
  return { ...content, url, kind, metadata };
}

export function createCollectors(deps: ActivityDeps, robotsBook = new RobotsBook(deps)) {
  async function collect(input: CollectInput): Promise<CollectResult> {
    const scope = currentScope();
    const { client, store } = deps;
    const kind = input.kind;
    const pageSize = input.pageSize ?? deps.collectPageSize ?? 100;
    return mapFailures(async () => {
      const cursor: Cursor = scope.lastHeartbeat<Cursor>() ?? { skip: 0, pages: 0, written: 0 };
      const seen = new Set<string>();
      const tracker = input.changes
        ? new ChangeTracker(store, input.runId, input.jobId, input.changes.previousRunId, () => scope.heartbeat(cursor))
        : undefined;
      let status: JobStatus = 'scraping';
      let creditsUsed = 0;
      for (;;) {
        const page = { skip: cursor.skip, limit: pageSize };
        const res = kind === 'crawl'
          ? await client.getCrawlStatus(input.jobId, page, { signal: scope.signal })
          : await client.getBatchScrapeStatus(input.jobId, page, { signal: scope.signal });
        status = res.status as JobStatus;
        creditsUsed = res.creditsUsed ?? 0;
        cursor.pages += 1;
        const docs = (res.data ?? []).map((d) => toDocumentInput(kind, d)).filter((d): d is DocumentInput => d !== undefined);
        // A page is "new" if it holds a URL this call has not seen: deployments that ignore
        // skip/limit return the same items again, and a running job's next repeats the skip.
        const fresh = docs.filter((d) => !seen.has(d.url));
        for (const d of fresh) seen.add(d.url);
        // Scrape and batch scrape do not read robots.txt on the service: a disallowed page is
        // kept as a failure, never stored. The failure is written first, so a retry that
        // resumes here drops the same page again (the check is cached per run and origin).
        const { keep, blocked } = input.robots
          ? await beatingWith(scope.heartbeat, () => cursor, () => splitByRobots(input.runId, fresh, robotsBook.agentFor(input.robots?.userAgent), scope.signal))
          : { keep: fresh, blocked: [] };
        if (blocked.length > 0) {
          await store.appendFailures(input.runId, input.jobId, blocked.map((d) => ({ url: d.url, error: 'disallowed by robots.txt; not stored', code: 'ROBOTS_BLOCKED' })));
          cursor.robots = (cursor.robots ?? 0) + blocked.length;
        }
        // A series run stores unchanged pages as stubs pointing at the earlier copy.
        const toStore = tracker && keep.length > 0 ? await tracker.track(keep) : keep;
        if (toStore.length > 0) cursor.written += await store.appendDocuments(input.runId, input.jobId, toStore);
        cursor.skip += res.data?.length ?? 0;
        scope.heartbeat(cursor);
        if (fresh.length === 0 || !res.next) break;
      }

      // Failed pages are kept too, so a run's report and support ask can see them.
      // The errors route is auxiliary: a service without it (the open-source server has no
      // batch errors route) lists no failures, and the collected data stands.
      const notAvailable: string[] = [];
      const errors = await jobErrorsOrNone(() => kind === 'crawl'
        ? client.getCrawlErrors(input.jobId, { signal: scope.signal })
        : client.getBatchScrapeErrors(input.jobId, { signal: scope.signal }), () => notAvailable.push(`${kind === 'crawl' ? 'crawl' : 'batch scrape'} errors`));
      const failures = [
        ...errors.errors.map((e) => ({ url: e.url, error: e.error, code: e.code, timestamp: e.timestamp })),
        ...errors.robotsBlocked.map((url) => ({ url, error: 'blocked by robots.txt', code: 'ROBOTS_BLOCKED' })),
      ];
      if (failures.length > 0) await store.appendFailures(input.runId, input.jobId, failures);

      const counts = await store.count(input.runId, { jobId: input.jobId });
      const robotsSkipped = errors.robotsBlocked.length + (cursor.robots ?? 0);
      return {
        jobId: input.jobId,
        kind,
        status,
        documents: counts.documents,
        written: cursor.written,
        failures: counts.failures,
        ...(notAvailable.length > 0 ? { notAvailable } : {}),
        creditsUsed,
        pages: cursor.pages,
        ref: refOf(store, input.runId, { jobId: input.jobId }),
        ...(robotsSkipped > 0 || input.robots ? { skipped: { robots: robotsSkipped } } : {}),
      };
    });
  }

  async function splitByRobots(runId: string, docs: DocumentInput[], agent: string, signal: AbortSignal) {
    const keep: DocumentInput[] = [];
    const blocked: DocumentInput[] = [];
    for (const d of docs) {
      const finalUrl = typeof d.metadata?.url === 'string' ? d.metadata.url : undefined;
      (await robotsBook.allows(runId, [d.url, finalUrl], agent, signal) ? keep : blocked).push(d);
    }
    return { keep, blocked };
  }

  return {
    collect,
    collectCrawl: (input: Omit<CollectInput, 'kind'> & { kind?: 'crawl' }) => collect({ ...input, kind: 'crawl' }),
    collectBatch: (input: Omit<CollectInput, 'kind'> & { kind?: 'batch' }) => collect({ ...input, kind: 'batch' }),
  };
}
