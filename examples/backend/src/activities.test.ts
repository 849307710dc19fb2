// The example's activity with its real dependency (a folder of summaries), under the SDK's
// MockActivityEnvironment.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities, type CrawlSummary } from './activities.js';
import { createFolderSummaryStore } from './summary-store.js';

const summary: CrawlSummary = {
  customer: 'acme', crawlId: 'crawl-acme-1', pipelineWorkflowId: 'crawl-acme-1-pipeline', url: 'https://docs.example.com/',
  status: 'completed', documents: 7, credits: 8, storeRunId: 'crawl-acme-1-pipeline', finishedAt: '2026-01-01T00:00:00.000Z',
};

test('recordCrawlSummary keeps one summary per crawl in the customer\'s folder; a retry replaces it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'example-summaries-'));
  try {
    const store = createFolderSummaryStore(dir);
    const { recordCrawlSummary } = createActivities({ summaries: store });
    const env = new MockActivityEnvironment();
    await env.run(recordCrawlSummary, summary);
    await env.run(recordCrawlSummary, { ...summary, documents: 9 });
    assert.deepEqual(await readdir(join(dir, 'acme')), ['crawl-acme-1.json']);
    assert.deepEqual(await store.list('acme'), [{ ...summary, documents: 9 }]);
    assert.deepEqual(await store.list('globex'), []);
    await assert.rejects(env.run(recordCrawlSummary, { ...summary, customer: '../acme' }), /must be file names/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
