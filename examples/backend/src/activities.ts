// The example's own activities, built by a factory from the dependencies they need (the worker
// passes real ones, the tests their own), as in Temporal's dependency-injection sample.
import { log } from '@temporalio/activity';

/** What the example records per crawl, for its customer. */
export interface CrawlSummary {
  customer: string;
  crawlId: string;
  pipelineWorkflowId: string;
  url: string;
  status: 'completed' | 'partial' | 'failed' | 'cancelled';
  documents: number;
  credits: number;
  /** The document store's run id, where the pages are (`webdata export <id>`). */
  storeRunId?: string;
  /** Why the pipeline failed, when it did. */
  reason?: string;
  finishedAt: string;
}

/** Where summaries go: a folder here (summary-store.ts), a table or a CRM in a real backend. */
export interface SummaryStore {
  /** Saves the crawl's summary; saving the same crawl again replaces it (activities are retried). */
  save(summary: CrawlSummary): Promise<void>;
}

export interface ActivityDeps {
  summaries: SummaryStore;
}

export function createActivities(deps: ActivityDeps) {
  return {
    async recordCrawlSummary(summary: CrawlSummary): Promise<void> {
      await deps.summaries.save(summary);
      log.info('crawl summary recorded', { customer: summary.customer, crawlId: summary.crawlId, status: summary.status, documents: summary.documents });
    },
  };
}

export type ExampleActivities = ReturnType<typeof createActivities>;
