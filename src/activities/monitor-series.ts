// A service monitor's check as a run of a change-report series: the same records a webdata
// schedule writes (activities/changes.ts), so `webdata changes` reads either. Series name:
// the webhook metadata's `series`, else `monitor-<monitorId>`; run id `monitor-check-<checkId>`.
//
// The service holds the pages' content, not us: each page is stored as a record with its
// `change` (same → unchanged), a changed page with the service's unified diff, a removed
// one in the run's `removed` list; error pages are left out, as a failed page is in a run.
// A page the service's AI judge judged (a monitor with a goal) keeps its `judgment`.
// Every write is keyed (store idempotency), so a redelivered webhook writes nothing twice.
import type { WebDataClient } from 'webdata-client';
import type { MonitorCheckPage } from 'webdata-contract';
import type { DocumentInput, DocumentStore } from 'webdata-storage';
import { REMOVED_LIST, SERIES_JOB, seriesRuns, seriesStoreRun } from './changes.js';
import type { ChangeCounts } from './types.js';

export interface MonitorCheckRecordInput {
  monitorId: string;
  checkId: string;
  /** Series to record it in; default `monitor-<monitorId>`. */
  series?: string;
}

export interface MonitorCheckRecord {
  series: string;
  runId: string;
  previousRunId: string | null;
  counts: ChangeCounts;
  /** false: the check was already recorded (a redelivery), nothing written. */
  written: boolean;
}

export const monitorSeriesName = (monitorId: string): string => `monitor-${monitorId}`;
export const monitorCheckRunId = (checkId: string): string => `monitor-check-${checkId}`;
const PAGES_JOB = 'monitor';
const BATCH = 200;

export async function recordMonitorCheck(
  deps: { client: WebDataClient; store: DocumentStore },
  input: MonitorCheckRecordInput,
  signal?: AbortSignal,
): Promise<MonitorCheckRecord> {
  const { client, store } = deps;
  const series = input.series ?? monitorSeriesName(input.monitorId);
  const runId = monitorCheckRunId(input.checkId);
  const runs = await seriesRuns(store, series);
  const already = runs.find((r) => r.runId === runId);
  if (already) return { series, runId, previousRunId: already.previousRunId, counts: already.counts, written: false };
  const previousRunId = runs.at(-1)?.runId ?? null;

  const counts: ChangeCounts = { new: 0, changed: 0, unchanged: 0, removed: 0 };
  const first = await client.getMonitorCheck(input.monitorId, input.checkId, { limit: 100 }, { signal });
  for await (const page of client.monitorCheckPages(input.monitorId, first, { signal })) {
    const docs: DocumentInput[] = [];
    const removed: Array<{ url: string }> = [];
    for (const p of page.data.pages) {
      if (p.status === 'removed') {
        removed.push({ url: p.url });
        counts.removed += 1;
      } else if (p.status !== 'error') {
        docs.push(pageRecord(p, input));
        counts[p.status === 'same' ? 'unchanged' : p.status] += 1;
      }
    }
    for (let i = 0; i < docs.length; i += BATCH) await store.appendDocuments(runId, PAGES_JOB, docs.slice(i, i + BATCH));
    if (removed.length) await store.appendLinks(runId, REMOVED_LIST, removed);
  }
  // The index entry last: a run is in the series only once all its pages are.
  await store.appendDocuments(seriesStoreRun(series), SERIES_JOB, [{
    url: runId,
    kind: 'series-run',
    workflowId: runId,
    previousRunId,
    completedAt: first.data.finishedAt ?? new Date().toISOString(),
    counts,
    monitorId: input.monitorId,
    checkId: input.checkId,
  }]);
  return { series, runId, previousRunId, counts, written: true };
}

/** Page kind `batch`: a page of the site, as the change report reads them. */
function pageRecord(p: MonitorCheckPage, input: MonitorCheckRecordInput): DocumentInput {
  const change = p.status === 'same' ? 'unchanged' : p.status;
  return {
    url: p.url,
    kind: 'batch',
    metadata: { statusCode: p.statusCode ?? undefined, scrapeId: p.currentScrapeId ?? undefined, monitorId: input.monitorId, checkId: input.checkId, targetId: p.targetId },
    change,
    ...(change === 'changed' && typeof p.diff?.text === 'string' ? { diff: p.diff.text } : {}),
    ...(p.judgment ? { judgment: p.judgment } : {}),
  };
}
