// Stub activities of a small site for the pipeline's fast tests: map finds 3 URLs, select keeps
// them, a crawl job completes with 3 pages (1 credit each) and its follower stores them. A test
// overrides the activities its branch is about.
import type { CollectResult, JobKind, JobSummary } from '../../src/activities/types.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { stubActivities, type Activities, type Stubs } from '../helpers/stub-activities.js';

export const SITE = 'http://site.test/';

/** Only map, select and crawl; the later stages are switched off unless a test turns them on. */
export function crawlInput(extra: Partial<PipelineInput> = {}): PipelineInput {
  return { url: SITE, ...extra, stages: { batch: false, interact: false, ...extra.stages } };
}

export function summary(kind: JobKind, jobId: string, status: JobSummary['status'], pages = 3): JobSummary {
  return { jobId, kind, status, total: pages, completed: status === 'scraping' ? 0 : pages, creditsUsed: status === 'scraping' ? 0 : pages };
}

export function collected(kind: JobKind, jobId: string, runId: string, documents = 3): CollectResult {
  return { jobId, kind, status: 'completed', documents, written: documents, failures: 0, creditsUsed: documents, pages: 1, ref: { runId, jobId } };
}

type Overrides = Parameters<typeof stubActivities>[0];

export function siteStubs(overrides: Overrides = {}): Stubs {
  let jobs = 0;
  const defaults: Overrides = {
    mapToStore: (input) => ({ count: 3, creditsUsed: 1, ref: { runId: input.runId, list: 'mapped' }, sample: [] }),
    selectUrls: (input) => ({ count: 3, ref: { runId: input.runId, list: input.toList }, sample: [], pathPatterns: [] }),
    startCrawl: () => ({ jobId: `crawl-${++jobs}`, recovered: false }),
    startBatchScrape: () => ({ jobId: `batch-${++jobs}`, recovered: false }),
    getJobSummary: (input) => summary(input.kind, input.jobId, 'completed'),
    followJob: (input) => ({ kind: 'done', summary: summary(input.kind, input.jobId, 'completed'), collected: collected(input.kind, input.jobId, input.runId) }),
    collectCrawl: (input) => collected('crawl', input.jobId, input.runId),
    collectBatch: (input) => collected('batch', input.jobId, input.runId),
    cancelJob: () => ({ status: 'cancelled' }),
  };
  return stubActivities({ ...defaults, ...overrides });
}

export type { Activities };

/** A reference into the (absent) filesystem store, as an activity answers it. */
export function storeRef(runId: string, scope: { jobId?: string; list?: string } = {}) {
  return { store: 'fs' as const, runId, ...scope };
}
