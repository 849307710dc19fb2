// The index of a change series in the store: the run `series:<name>` (`:` never appears in a
// pipeline run id) lists the series' completed runs. Read by the change activities, `webdata
// changes` and a tenant's erasure; kept apart from the activities so that the client side reads
// it without loading the activity runtime (a start-runs-only install has no @temporalio/activity).
import type { DocumentStore, StoredDocument } from 'webdata-storage';
import type { ChangeCounts } from './types.js';

/** The job under which the series' store run lists its runs. */
export const SERIES_JOB = 'runs';

export const seriesStoreRun = (series: string): string => `series:${series}`;

/** One completed run in a series' index. */
export interface SeriesRunEntry {
  runId: string;
  workflowId: string;
  previousRunId: string | null;
  completedAt: string;
  counts: ChangeCounts;
}

/** The completed runs of a series, oldest first. */
export async function seriesRuns(store: DocumentStore, series: string): Promise<SeriesRunEntry[]> {
  const out: SeriesRunEntry[] = [];
  for await (const doc of store.readDocuments(seriesStoreRun(series), { jobId: SERIES_JOB })) out.push(seriesEntryOf(doc));
  return out;
}

function seriesEntryOf(doc: StoredDocument): SeriesRunEntry {
  return {
    runId: doc.url,
    workflowId: String(doc.workflowId ?? doc.url),
    previousRunId: typeof doc.previousRunId === 'string' ? doc.previousRunId : null,
    completedAt: String(doc.completedAt ?? doc.storedAt),
    counts: doc.counts as ChangeCounts,
  };
}
