// Change reports for recurring runs. Runs of one series (a schedule, or a name given in
// input.changes.series) compare each page with the series' previous completed run by a hash of
// its normalized content: new, changed, unchanged, removed.
//
// What the store holds, per run of a series:
//   - new and changed pages: the whole document plus `contentHash` and `change`; a changed one
//     also carries `diff`, a unified diff of its markdown against the previous copy;
//   - unchanged pages: a stub (url, kind, metadata, contentHash, `change: 'unchanged'`) whose
//     `copyOf` names the run and job that hold the content; nothing is stored again;
//   - link list `removed`: pages of the previous run this run did not find.
// The series' own index is the run `series:<name>` (`:` never appears in a pipeline run id):
// one entry per completed run, in order. Only completed runs become the next run's baseline.
import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import { signWebhookBody } from 'webdata-client';
import type { DocumentInput, DocumentStore } from 'webdata-storage';
import { currentScope } from './context.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';
import { SERIES_JOB, seriesRuns, seriesStoreRun } from './series-index.js';
import { urlKey } from 'webdata-contract';
import type { ChangeCounts, ChangeReport, CloseSeriesRunInput, OpenSeriesRunInput, OpenSeriesRunResult, SendChangeSummaryInput, StoreReference } from './types.js';

/** `removed` on a stored page: it was there last run and now answers 404 or 410. */
export type ChangeKind = 'new' | 'changed' | 'unchanged' | 'removed';

/** A page that answers 404 or 410 is gone, whatever the URL sources (map's index, links) still say. */
const isGone = (doc: Pick<DocumentInput, 'metadata'>): boolean => {
  const status = (doc.metadata as { statusCode?: unknown } | undefined)?.statusCode;
  return status === 404 || status === 410;
};

/** Where a page's content is stored (its own run, or an earlier run of the series). */
export interface ContentCopy {
  runId: string;
  jobId: string;
}

/** Job kinds whose documents are pages of the site (interact outputs are not tracked). */
const PAGE_KINDS = new Set(['crawl', 'batch']);
export const REMOVED_LIST = 'removed';
export { SERIES_JOB, seriesRuns, seriesStoreRun, type SeriesRunEntry } from './series-index.js';
export const CHANGES_SIGNATURE_HEADER = 'x-webdata-signature';
/** URLs per kind carried in results and the webhook (the store has them all). */
const SAMPLE = 20;

/**
 * Markdown as compared: line endings, trailing spaces and runs of blank lines do not count.
 * The status code does: a page that starts answering 404 has changed.
 */
export function normalizedContent(doc: Pick<DocumentInput, 'markdown' | 'html' | 'rawHtml' | 'metadata'>): string {
  const text = doc.markdown ?? doc.html ?? doc.rawHtml ?? '';
  const body = text.replace(/\r\n?/g, '\n').split('\n').map((l) => l.replace(/[ \t]+$/, '')).join('\n').replace(/\n{3,}/g, '\n\n').trim();
  const status = (doc.metadata as { statusCode?: unknown } | undefined)?.statusCode;
  return `${typeof status === 'number' ? status : 200}\n${body}`;
}

export function contentHash(doc: Pick<DocumentInput, 'markdown' | 'html' | 'rawHtml' | 'metadata'>): string {
  return createHash('sha256').update(normalizedContent(doc)).digest('hex').slice(0, 32);
}

interface BaselineEntry {
  url: string;
  hash: string;
  copy: ContentCopy;
  gone: boolean;
}

/** The pages of a series run as a baseline: url key → hash and where the content is. */
async function loadBaseline(store: DocumentStore, runId: string, beat: () => void): Promise<Map<string, BaselineEntry>> {
  const pages = new Map<string, BaselineEntry>();
  for await (const doc of store.readDocuments(runId)) {
    beat();
    if (!PAGE_KINDS.has(doc.kind)) continue;
    pages.set(urlKey(doc.url), {
      url: doc.url,
      hash: typeof doc.contentHash === 'string' ? doc.contentHash : contentHash(doc),
      copy: isCopy(doc.copyOf) ? doc.copyOf : { runId, jobId: doc.jobId },
      gone: isGone(doc),
    });
  }
  return pages;
}

function isCopy(v: unknown): v is ContentCopy {
  return typeof v === 'object' && v !== null && typeof (v as ContentCopy).runId === 'string' && typeof (v as ContentCopy).jobId === 'string';
}

/**
 * Turns a job's documents into what the store keeps for a series run: unchanged pages become
 * stubs pointing at the earlier copy; changed ones get a diff. The baseline is read once per
 * collector attempt (a url → hash map: tens of bytes per page).
 */
export class ChangeTracker {
  private baseline: Promise<Map<string, BaselineEntry>> | undefined;

  constructor(
    private readonly store: DocumentStore,
    private readonly runId: string,
    private readonly jobId: string,
    private readonly previousRunId: string | null,
    private readonly beat: () => void,
  ) {}

  async track(docs: readonly DocumentInput[]): Promise<DocumentInput[]> {
    const baseline = this.previousRunId === null ? new Map<string, BaselineEntry>() : await (this.baseline ??= loadBaseline(this.store, this.previousRunId, this.beat));
    const out: DocumentInput[] = [];
    for (const doc of docs) {
      const hash = contentHash(doc);
      const before = baseline.get(urlKey(doc.url));
      if (!before || (before.gone && !isGone(doc))) {
        // Not there last run (or answering 404/410 then): a page that came back is new again.
        out.push({ ...doc, contentHash: hash, change: 'new' });
      } else if (isGone(doc) && !before.gone) {
        out.push({ ...doc, contentHash: hash, change: 'removed' });
      } else if (before.hash === hash) {
        out.push({ url: doc.url, kind: doc.kind, metadata: doc.metadata ?? {}, contentHash: hash, change: 'unchanged', copyOf: before.copy });
      } else {
        const old = await this.store.getDocument(before.copy.runId, before.copy.jobId, before.url);
        this.beat();
        const diff = old ? unifiedDiff(doc.url, before.copy.runId, this.runId, old, doc) : undefined;
        out.push({ ...doc, contentHash: hash, change: 'changed', ...(diff !== undefined ? { diff } : {}) });
      }
    }
    return out;
  }
}

function unifiedDiff(url: string, fromRun: string, toRun: string, old: Pick<DocumentInput, 'markdown' | 'html' | 'rawHtml' | 'metadata'>, now: Pick<DocumentInput, 'markdown' | 'html' | 'rawHtml' | 'metadata'>): string {
  const text = (d: typeof old) => `${normalizedContent(d).split('\n').slice(1).join('\n')}\n`;
  const status = (d: typeof old) => (d.metadata as { statusCode?: unknown } | undefined)?.statusCode ?? 200;
  const header = status(old) === status(now) ? '' : ` (status ${String(status(old))} → ${String(status(now))})`;
  return createTwoFilesPatch(url, url, text(old), text(now), `run ${fromRun}`, `run ${toRun}${header}`, { context: 3 });
}

export function createChangeActivities(deps: ActivityDeps) {
  const { store } = deps;

  /** The series' latest completed run other than this one: the baseline this run compares with. */
  async function openSeriesRun(input: OpenSeriesRunInput): Promise<OpenSeriesRunResult> {
    return mapFailures(async () => {
      const runs = (await seriesRuns(store, input.series)).filter((r) => r.runId !== input.runId);
      return { previousRunId: runs.at(-1)?.runId ?? null };
    });
  }

  /**
   * Counts the run's changes, lists the removed pages, records the run in the series (when it
   * completed) and sends the signed summary webhook. Idempotent: a retry counts the same.
   */
  async function closeSeriesRun(input: CloseSeriesRunInput): Promise<ChangeReport> {
    const scope = currentScope();
    let n = 0;
    const beat = () => { if (++n % 500 === 0) scope.heartbeat(); };
    return mapFailures(async () => {
      const counts: ChangeCounts = { new: 0, changed: 0, unchanged: 0, removed: 0 };
      const samples: Record<'new' | 'changed' | 'removed', string[]> = { new: [], changed: [], removed: [] };
      const present = new Set<string>();
      // Pages stored with a 404/410 that were there before: removed, listed with the absent ones.
      const goneNow: Array<{ url: string }> = [];
      for await (const doc of store.readDocuments(input.runId)) {
        beat();
        if (!PAGE_KINDS.has(doc.kind)) continue;
        const key = urlKey(doc.url);
        if (present.has(key)) continue;
        present.add(key);
        const change: ChangeKind = doc.change === 'unchanged' || doc.change === 'changed' || doc.change === 'removed' ? doc.change : 'new';
        counts[change] += 1;
        if (change !== 'unchanged' && samples[change].length < SAMPLE) samples[change].push(doc.url);
        if (change === 'removed') goneNow.push({ url: doc.url });
      }
      const removed: Array<{ url: string }> = [];
      const flush = async () => { if (removed.length) await store.appendLinks(input.runId, REMOVED_LIST, removed.splice(0)); };
      removed.push(...goneNow);
      await flush();
      if (input.previousRunId !== null) {
        const listed = new Set<string>();
        for await (const doc of store.readDocuments(input.previousRunId)) {
          beat();
          // A page already gone last run (404/410) is not removed again.
          if (!PAGE_KINDS.has(doc.kind) || isGone(doc)) continue;
          const key = urlKey(doc.url);
          if (present.has(key) || listed.has(key)) continue;
          listed.add(key);
          counts.removed += 1;
          if (samples.removed.length < SAMPLE) samples.removed.push(doc.url);
          removed.push({ url: doc.url });
          if (removed.length >= 500) await flush();
        }
        await flush();
      }
      const report: ChangeReport = {
        series: input.series,
        runId: input.runId,
        previousRunId: input.previousRunId,
        counts,
        new: samples.new,
        changed: samples.changed,
        removed: samples.removed,
        removedRef: { runId: input.runId, list: REMOVED_LIST } satisfies StoreReference,
        baseline: input.record,
      };
      if (input.record) {
        await store.appendDocuments(seriesStoreRun(input.series), SERIES_JOB, [{
          url: input.runId,
          kind: 'series-run',
          workflowId: input.workflowId,
          previousRunId: input.previousRunId,
          completedAt: new Date().toISOString(),
          counts,
        }]);
      }
      return report;
    });
  }

  /**
   * Posts the summary to the user's URL, signed like the service's webhooks (HMAC-SHA256 of the
   * raw body, `x-webdata-signature: sha256=<hex>`). A refusal (4xx) is reported, not retried;
   * 5xx and network errors are retried by the activity's policy.
   */
  async function sendChangeSummary(input: SendChangeSummaryInput): Promise<string> {
    const secret = deps.changesWebhookSecret;
    if (!secret) return 'not sent: the worker has no WEBDATA_CHANGES_WEBHOOK_SECRET to sign it with';
    const { signal } = currentScope();
    const body = JSON.stringify({ type: 'webdata.changes', workflowId: input.workflowId, status: input.status, ...input.report });
    const res = await (deps.webhookFetch ?? fetch)(input.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CHANGES_SIGNATURE_HEADER]: signWebhookBody(body, secret) },
      body,
      signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status >= 500) throw new Error(`changes webhook ${input.url} answered ${res.status}`);
    return res.ok ? `sent (${res.status})` : `refused by the receiver (${res.status})`;
  }

  return { openSeriesRun, closeSeriesRun, sendChangeSummary };
}
