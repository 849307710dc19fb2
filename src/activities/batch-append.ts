// Batch append (appendToId): adds URLs of a stored link list to the run's own batch job. The
// workflow keeps one idempotency key per addition, so a retried append is refused (409) instead
// of adding the URLs twice; a service that ignores keys is checked by the job's total first.
import { WebDataApiError } from 'webdata-client';
import type { BatchScrapeRequest } from 'webdata-contract';
import { currentScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';

export interface AppendBatchInput {
  jobId: string;
  /** The URLs: `limit` entries of the list from `offset` on. */
  urlsFrom: { runId: string; list: string; offset: number; limit: number };
  options?: Omit<BatchScrapeRequest, 'urls'>;
  idempotencyKey?: string;
  /** The job's total before this addition (the workflow's last status read). */
  totalBefore: number;
}

export type AppendBatchResult =
  | { kind: 'appended'; jobId: string; urls: number; recovered: boolean }
  /** The service has no append; `startedJobId` when it started another job with the URLs instead. */
  | { kind: 'not-available'; reason: string; startedJobId?: string }
  /** The job can no longer take URLs (failed, cancelled: 409). */
  | { kind: 'not-extended'; reason: string };

function isKeyConflict(err: unknown): boolean {
  return err instanceof WebDataApiError && err.kind === 'conflict' && /idempotency/i.test(err.message);
}

export function createBatchAppendActivities(deps: ActivityDeps) {
  async function readUrls(from: AppendBatchInput['urlsFrom']): Promise<string[]> {
    const urls: string[] = [];
    let index = 0;
    for await (const link of deps.store.readLinks(from.runId, from.list)) {
      if (urls.length >= from.limit) break;
      if (index++ >= from.offset) urls.push(link.url);
    }
    return urls;
  }

  async function appendBatchScrape(input: AppendBatchInput): Promise<AppendBatchResult> {
    const scope = currentScope();
    return mapFailures(async () => {
      const urls = await readUrls(input.urlsFrom);
      if (urls.length === 0) return { kind: 'appended', jobId: input.jobId, urls: 0, recovered: false };
      // A retry after a lost answer: the job already grew by these URLs (services without keys).
      if (scope.attempt() > 1) {
        const now = await deps.client.getBatchScrapeStatus(input.jobId, { skip: 0, limit: 1 }, { signal: scope.signal });
        if ((now.total ?? 0) >= input.totalBefore + urls.length) return { kind: 'appended', jobId: input.jobId, urls: urls.length, recovered: true };
      }
      try {
        await deps.client.appendToBatchScrape(input.jobId, { ...(input.options ?? {}), urls }, { idempotencyKey: input.idempotencyKey, signal: scope.signal });
        return { kind: 'appended', jobId: input.jobId, urls: urls.length, recovered: false };
      } catch (err) {
        if (isKeyConflict(err)) return { kind: 'appended', jobId: input.jobId, urls: urls.length, recovered: true };
        if (err instanceof WebDataApiError && err.kind === 'not_available') {
          return { kind: 'not-available', reason: err.message, ...(err.jobId && err.jobId !== input.jobId ? { startedJobId: err.jobId } : {}) };
        }
        if (err instanceof WebDataApiError && err.kind === 'conflict') return { kind: 'not-extended', reason: err.message };
        throw err;
      }
    });
  }

  return { appendBatchScrape };
}
