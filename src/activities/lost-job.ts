// What a lost job (the service answers 404 for it: restarted, or its results expired) left in
// the store: the workflow starts one new job for the rest and reports figures from here.
import { urlKey } from 'webdata-contract';
import type { DocumentStore } from 'webdata-storage';
import { currentScope } from './context.js';
import type { ActivityDeps } from './deps.js';

/** URLs handed back at most: a crawl's exclude patterns grow with them (the rest is deduplicated when collected). */
export const LOST_JOB_URLS_KEPT = 500;

export interface LostJobInput {
  runId: string;
  jobId: string;
}

export interface LostJobInventory {
  jobId: string;
  /** Documents and failures of the job in the store (its pages collected before it was lost). */
  documents: number;
  failures: number;
  /** Stored URLs (and final URLs), at most LOST_JOB_URLS_KEPT; `truncated` when there were more. */
  urls: string[];
  truncated: boolean;
}

/** Keys (urlKey) of every URL and final URL the given jobs stored in the run. */
export async function storedKeys(store: DocumentStore, runId: string, jobIds: readonly string[], beat?: () => void): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const jobId of jobIds) {
    for await (const doc of store.readDocuments(runId, { jobId })) {
      beat?.();
      keys.add(urlKey(doc.url));
      const finalUrl = (doc.metadata as { url?: unknown }).url;
      if (typeof finalUrl === 'string') keys.add(urlKey(finalUrl));
    }
  }
  return keys;
}

export function createLostJobActivities(deps: ActivityDeps) {
  return {
    async lostJobInventory(input: LostJobInput): Promise<LostJobInventory> {
      const scope = currentScope();
      const counts = await deps.store.count(input.runId, { jobId: input.jobId });
      const urls: string[] = [];
      let truncated = false;
      for await (const doc of deps.store.readDocuments(input.runId, { jobId: input.jobId })) {
        scope.heartbeat();
        if (urls.length >= LOST_JOB_URLS_KEPT) {
          truncated = true;
          break;
        }
        urls.push(doc.url);
      }
      return { jobId: input.jobId, documents: counts.documents, failures: counts.failures, urls, truncated };
    },

    /** Documents and failures a job stored in the run (a failed or cancelled stage reports these). */
    async storedCounts(input: LostJobInput): Promise<{ documents: number; failures: number }> {
      const counts = await deps.store.count(input.runId, { jobId: input.jobId });
      return { documents: counts.documents, failures: counts.failures };
    },
  };
}
