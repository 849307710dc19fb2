// The run summary's lines for a recovered lost job and estimated credits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatSummary } from '../../src/cli/summary.js';
import type { PipelineResult } from '../../src/workflows/state.js';

function result(crawl: PipelineResult['stages']['crawl'], estimated?: string[]): PipelineResult {
  return {
    status: 'completed', runId: 'r', url: 'http://site.test/', stages: { crawl }, documents: crawl?.documents ?? 0, jobs: {}, store: { runId: 'r' }, continuedAsNew: 0,
    credits: { budget: null, spent: crawl?.credits ?? 0, byStage: {}, events: [], ...(estimated ? { estimated } : {}) },
  };
}

test('a recovered crawl: one line naming both jobs, and the estimate', () => {
  const out = formatSummary(result(
    { status: 'completed', documents: 20, credits: 21, jobId: 'job-b', recovered: { lostJob: 'job-a', newJob: 'job-b', pages: 14, lostPages: 6, lostCredits: 6, creditsEstimated: true } },
    ['crawl: job job-a lost; 6 credits estimated from its 6 stored pages at 1 credits each'],
  ), { workflowId: 'w' });
  const lines = out.split('\n');
  assert.ok(lines.includes('            recovered: job job-a lost after 6 pages (~6 credits, estimated); job job-b stored 14 more'), out);
  assert.ok(lines.includes('  estimated: crawl: job job-a lost; 6 credits estimated from its 6 stored pages at 1 credits each'), out);
});

test('no recovery, no estimate: no such lines', () => {
  const out = formatSummary(result({ status: 'completed', documents: 3, credits: 3, jobId: 'job-a' }), { workflowId: 'w' });
  assert.doesNotMatch(out, /recovered|estimated/);
});
