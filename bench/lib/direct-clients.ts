// The two non-Temporal ways to crawl and collect: the official Firecrawl SDK's crawl() waiter
// and a hand-written loop over WebDataClient that pages `next` into a store as results come.
import Firecrawl from '@mendable/firecrawl-js';
import { toDocumentInput } from '../../src/activities/collect.js';
import type { WebDataClient } from '../../packages/client/src/client.js';
import type { CrawlRequest } from '../../packages/contract/src/schemas/index.js';
import type { DocumentInput, DocumentStore } from '../../packages/storage/src/types.js';

export interface CrawlOutcome {
  jobId: string;
  status: string;
  documents: number;
  /** Epoch ms the client call returned with every document in hand or stored. */
  endedAt: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * startCrawl, then one loop: read the status from the collected cursor on (`skip`), store
 * what came, follow `next` while it brings data, sleep `pollMs` when it brings nothing new.
 * Every document is downloaded once; the loop ends when the job is finished and no page is left.
 */
export async function handLoopCrawl(api: WebDataClient, store: DocumentStore, runId: string, body: CrawlRequest, pollMs: number): Promise<CrawlOutcome> {
  const { id } = await api.startCrawl(body);
  let skip = 0;
  let stored = 0;
  for (;;) {
    const page = await api.getCrawlStatus(id, { skip });
    const docs = page.data.map((d) => toDocumentInput('crawl', d)).filter((d): d is DocumentInput => d !== undefined);
    if (docs.length > 0) stored += await store.appendDocuments(runId, id, docs);
    skip += page.data.length;
    const finished = TERMINAL.has(page.status);
    if (finished && !page.next) {
      return { jobId: id, status: page.status, documents: stored, endedAt: Date.now() };
    }
    if (page.data.length === 0 && !finished) await sleep(pollMs);
  }
}

/** The SDK's own waiter: `crawl()` polls every `pollInterval` seconds and returns every document in memory. */
export async function sdkCrawl(apiUrl: string, apiKey: string, body: CrawlRequest, pollSeconds: number): Promise<CrawlOutcome> {
  const firecrawl = new Firecrawl({ apiKey, apiUrl });
  const { url, ...rest } = body;
  const job = await firecrawl.crawl(url, { ...(rest as Record<string, unknown>), pollInterval: pollSeconds, timeout: 900 });
  const endedAt = Date.now();
  return { jobId: job.id, status: job.status, documents: job.data.length, endedAt };
}
