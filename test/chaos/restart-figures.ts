// What the restart scenarios read after a run: the store per job, each job's creditsUsed as the
// service answers it now (or "lost"), the run's labelled estimates, and named checks that are
// all evaluated (and recorded with the figures) before the scenario fails on the first false one.
import assert from 'node:assert/strict';
import type { DocumentStore } from '../../packages/storage/src/index.js';
import type { PipelineResult } from '../../src/workflows/state.js';

export class Checks {
  readonly failed: string[] = [];
  private count = 0;

  ok(name: string, value: boolean, detail = ''): void {
    this.count += 1;
    if (!value) this.failed.push(`${name}${detail ? `: ${detail}` : ''}`);
  }

  equal(name: string, actual: unknown, expected: unknown): void {
    this.ok(name, actual === expected, `${JSON.stringify(actual)} !== ${JSON.stringify(expected)} (expected)`);
  }

  summary(): string {
    return this.failed.length === 0 ? `${this.count}/${this.count} checks` : `${this.count - this.failed.length}/${this.count} checks; failed: ${this.failed.join(' | ')}`;
  }

  assertAll(): void {
    assert.deepEqual(this.failed, [], `${this.failed.length} of ${this.count} checks failed`);
  }
}

export interface StoreFigures {
  /** Stored paths per job id, in store order. */
  byJob: Map<string, string[]>;
  byKind: Record<string, number>;
  total: number;
  /** Paths stored more than once in the run (any jobs). */
  duplicates: string[];
}

export async function storeFigures(store: DocumentStore, runId: string): Promise<StoreFigures> {
  const byJob = new Map<string, string[]>();
  const byKind: Record<string, number> = {};
  const seen = new Set<string>();
  const duplicates: string[] = [];
  let total = 0;
  for await (const doc of store.readDocuments(runId)) {
    const path = new URL(doc.url).pathname;
    total += 1;
    byKind[doc.kind] = (byKind[doc.kind] ?? 0) + 1;
    if (!byJob.has(doc.jobId)) byJob.set(doc.jobId, []);
    byJob.get(doc.jobId)?.push(path);
    if (seen.has(doc.url)) duplicates.push(path);
    seen.add(doc.url);
  }
  return { byJob, byKind, total, duplicates };
}

export interface JobStatusRead {
  status: string;
  completed: number;
  creditsUsed: number;
}

/** GET a job's status as the service answers it now; undefined when it answers 404 (it forgot the job). */
export async function readJob(serviceUrl: string, key: string, kind: 'crawl' | 'batch', jobId: string): Promise<JobStatusRead | undefined> {
  const path = kind === 'crawl' ? `/v2/crawl/${jobId}` : `/v2/batch/scrape/${jobId}`;
  const res = await fetch(`${serviceUrl}${path}?skip=0&limit=1`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { status?: string; completed?: number; creditsUsed?: number };
  if (res.status === 404) return undefined;
  assert.equal(res.status, 200, `GET ${path}: ${JSON.stringify(body)}`);
  return { status: String(body.status), completed: body.completed ?? 0, creditsUsed: body.creditsUsed ?? 0 };
}

/** Each job of the run (state.jobs: `crawl#1`, `crawl#recovery`, `batch#1`...) and its creditsUsed now, or "lost". */
export async function jobCredits(serviceUrl: string, key: string, jobs: Record<string, string>): Promise<Array<{ name: string; jobId: string; creditsUsed: number | 'lost' }>> {
  const out: Array<{ name: string; jobId: string; creditsUsed: number | 'lost' }> = [];
  for (const [name, jobId] of Object.entries(jobs)) {
    const kind = name.startsWith('batch') ? 'batch' : 'crawl';
    const read = await readJob(serviceUrl, key, kind, jobId);
    out.push({ name, jobId, creditsUsed: read ? read.creditsUsed : 'lost' });
  }
  return out;
}

/** The run's labelled estimates by job id ("crawl: job <id> lost; <n> credits estimated from ..."). */
export function estimates(result: PipelineResult): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of result.credits.estimated ?? []) {
    const m = /job (\S+) (?:lost|stalled)[^;]*; (\d+) credits estimated/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

/** Credits of the run's stages that are not crawl or batch jobs (map: one call). */
export function otherStageCredits(result: PipelineResult): number {
  return Object.entries(result.credits.byStage).filter(([stage]) => stage !== 'crawl' && stage !== 'batch').reduce((n, [, c]) => n + (c ?? 0), 0);
}

