// The run summary's lines for a recovered lost or stalled job and estimated credits, and the
// status view of a job that stopped moving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderProgress } from '../../src/cli/progress-view.js';
import { formatSummary } from '../../src/cli/summary.js';
import type { PipelineProgress } from '../../src/workflows/definitions.js';
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

test('a stalled crawl: its last progress, how long it stood still, the cancel and what was recovered', () => {
  const out = formatSummary(result({
    status: 'completed', documents: 10, credits: 12, jobId: 'job-b',
    stalled: { jobId: 'job-a', completed: 6, total: 10, stillForMs: 312_000, declaredAt: '2026-01-01T00:00:00.000Z', cancel: 'cancelled', stored: 6 },
    recovered: { lostJob: 'job-a', why: 'stalled', newJob: 'job-b', pages: 4, lostPages: 6, lostCredits: 7, creditsEstimated: false },
  }), { workflowId: 'w' });
  const lines = out.split('\n');
  assert.ok(lines.includes('            stalled: job job-a at 6/10, no progress for 5 min, cancelled (cancelled) with 6 pages stored; job job-b stored 4 more'), out);
  assert.ok(lines.includes('            recovered: job job-a stalled after 6 pages (7 credits); job job-b stored 4 more'), out);
  assert.doesNotMatch(out, /estimated/);
});

test('status of a running job that stopped moving: "no progress for N min" once a minute has passed', () => {
  const now = Date.parse('2026-01-01T00:10:00.000Z');
  const progress = (since: string): PipelineProgress => ({
    stage: 'crawl', status: 'running', documents: 27, continuedAsNew: 0, jobs: {},
    credits: { budget: null, spent: 27, byStage: {}, events: [] },
    stages: { crawl: { status: 'running', documents: 27, total: 28, credits: 27, jobId: 'job-a', progress: { completed: 27, since, stallAfterMs: 300_000 } } },
  });
  assert.ok(renderProgress(progress('2026-01-01T00:06:30.000Z'), now).includes('            no progress for 3 min (job job-a at 27/28; stalled at 5 min)'));
  assert.doesNotMatch(renderProgress(progress('2026-01-01T00:09:30.000Z'), now).join('\n'), /no progress/);
  // A short stall time shows it from half of it on.
  const short = progress('2026-01-01T00:09:40.000Z');
  (short.stages.crawl as { progress: { stallAfterMs: number } }).progress.stallAfterMs = 30_000;
  assert.ok(renderProgress(short, now).includes('            no progress for 20 s (job job-a at 27/28; stalled at 30 s)'));
});
