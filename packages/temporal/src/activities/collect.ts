// Collectors: page a job's results into the store. The cursor (skip) is heartbeated after each
// stored page, so a retry or a restarted worker resumes there; appends are idempotent by
// job id + URL, so a page stored just before a crash is not stored twice.
import type { ScrapeDocument } from 'webdata-contract';
import type { DocumentInput } from 'webdata-storage';
import { refOf } from 'webdata-storage';
import { currentScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import type { CollectInput, CollectResult, JobStatus } from './types.js';

interface Cursor {
  skip: number;
  pages: number;
  written: number;
}

export function toDocumentInput(kind: string, doc: ScrapeDocument): DocumentInput | undefined {
  const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
  const url = (metadata.sourceURL ?? metadata.url) as string | undefined;
  if (!url) return undefined;
  const { metadata: _m, ...content } = doc;
  return { ...content, url, kind, metadata };
}

export function createCollectors(deps: ActivityDeps) {
  async function collect(input: CollectInput): Promise<CollectResult> {
    const scope = currentScope();
    const { client, store } = deps;
    const kind = input.kind;
    const pageSize = input.pageSize ?? deps.collectPageSize ?? 100;
    return mapFailures(async () => {
      const cursor: Cursor = scope.lastHeartbeat<Cursor>() ?? { skip: 0, pages: 0, written: 0 };
      const seen = new Set<string>();
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
        if (fresh.length > 0) cursor.written += await store.appendDocuments(input.runId, input.jobId, fresh);
        cursor.skip += res.data?.length ?? 0;
        scope.heartbeat(cursor);
        if (fresh.length === 0 || !res.next) break;
      }

      // Failed pages are kept too, so a run's report and support ask can see them.
      const errors = kind === 'crawl'
        ? await client.getCrawlErrors(input.jobId, { signal: scope.signal })
        : await client.getBatchScrapeErrors(input.jobId, { signal: scope.signal });
      const failures = [
        ...errors.errors.map((e) => ({ url: e.url, error: e.error, code: e.code, timestamp: e.timestamp })),
        ...errors.robotsBlocked.map((url) => ({ url, error: 'blocked by robots.txt', code: 'ROBOTS_BLOCKED' })),
      ];
      if (failures.length > 0) await store.appendFailures(input.runId, input.jobId, failures);

      const counts = await store.count(input.runId, { jobId: input.jobId });
      return {
        jobId: input.jobId,
        kind,
        status,
        documents: counts.documents,
        written: cursor.written,
        failures: counts.failures,
        creditsUsed,
        pages: cursor.pages,
        ref: refOf(store, input.runId, { jobId: input.jobId }),
      };
    });
  }

  return {
    collect,
    collectCrawl: (input: Omit<CollectInput, 'kind'> & { kind?: 'crawl' }) => collect({ ...input, kind: 'crawl' }),
    collectBatch: (input: Omit<CollectInput, 'kind'> & { kind?: 'batch' }) => collect({ ...input, kind: 'batch' }),
  };
}
