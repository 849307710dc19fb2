// Acceptance: the worker started from the environment with WEBDATA_METRICS_BIND serves the
// Temporal runtime's metrics and the package's own on one Prometheus endpoint, scraped during
// and after a pipeline run on the local stack; its log is one JSON object per line.
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { renderProgress } from '../../src/cli/progress-view.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { progressQuery } from '../../src/workflows/definitions.js';
import { listTenantRuns } from '../../src/client/tenant-runs.js';
import { TENANT } from '../../src/search-attributes.js';
import { freeLoopbackPort } from '../../src/devserver/index.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { startStack } from '../helpers/stack.js';
import { startWorkerProcess, until, type WorkerProcess } from './worker-process.js';

interface Sample { name: string; labels: Record<string, string>; value: number }

function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** Samples of a counter (with or without a `_total` suffix) matching the labels. */
function counter(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => (s.name === name || s.name === `${name}_total`) && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
const sum = (samples: Sample[]) => samples.reduce((n, s) => n + s.value, 0);

let stack: DevStack;
let worker: WorkerProcess;
let metricsUrl: string;
const taskQueue = `observe-metrics-${Date.now()}`;

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const res = await request(metricsUrl);
  const text = await res.body.text();
  assert.equal(res.statusCode, 200, text.slice(0, 500));
  return { text, samples: parsePrometheus(text) };
}

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('metrics', () => {
  before(async () => {
    stack = await startStack({ worker: false });
    const port = await freeLoopbackPort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    worker = await startWorkerProcess(stack, taskQueue, {
      WEBDATA_METRICS_BIND: `127.0.0.1:${port}`,
      WEBDATA_LOG_FORMAT: 'json',
      TEMPORAL_LOG_LEVEL: 'INFO',
    });
  });
  after(async () => {
    await worker?.stop();
    await stack?.close();
  });

  describe('Prometheus metrics of a pipeline run', () => {
    let result: PipelineResult;
    let runId: string;

    test('one endpoint serves the runtime metrics and the package metrics, with the run\'s values', async () => {
      const site = stack.service.siteUrl as string;
      const handle = await startPipeline(
        stack.temporal.client,
        { url: `${site}/`, tenant: 'acme', priorityKey: 2, select: { include: ['^/docs'] }, crawl: { limit: 8, maxDiscoveryDepth: 2 }, stages: { interact: false, support: false } },
        { taskQueue, workflowId: `observe-metrics-${Date.now()}` },
      );
      runId = handle.workflowId;
      // During the run: the crawl start is counted as soon as it was answered.
      await until('POST /v2/crawl counted on the endpoint', async () => sum(counter((await scrape()).samples, 'webdata_http_requests', { method: 'POST', route: '/v2/crawl', status: '200' })) > 0, 180_000);
      result = await handle.result();
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));

      const counts = await stack.store.count(runId);
      assert.ok(counts.documents > 0, 'the run stored documents');
      // The workflow's metrics are recorded when its last task completes: wait until they show.
      await until('the run counted as finished', async () => sum(counter((await scrape()).samples, 'webdata_pipeline_runs', { status: 'completed' })) === 1);
      await until('every stored page counted', async () => sum(counter((await scrape()).samples, 'webdata_pages_stored')) === counts.documents);
      const { text, samples } = await scrape();
      // WEBDATA_METRICS_DUMP=file keeps the scrape (the README's excerpt comes from one).
      if (process.env.WEBDATA_METRICS_DUMP) writeFileSync(process.env.WEBDATA_METRICS_DUMP, text);

      // The runtime's own metrics on the same endpoint.
      assert.ok(samples.some((s) => s.name.startsWith('temporal_') && /activity|workflow/.test(s.name)), 'no temporal_* runtime metrics');

      // Requests by route and status: the crawl start, the status pages, the map.
      assert.equal(sum(counter(samples, 'webdata_http_requests', { method: 'POST', route: '/v2/crawl', status: '200' })), 1, 'one crawl start');
      assert.ok(sum(counter(samples, 'webdata_http_requests', { method: 'GET', route: '/v2/crawl/{id}', status: '200' })) >= 1, 'status pages counted');
      assert.ok(sum(counter(samples, 'webdata_http_requests', { method: 'POST', route: '/v2/map', status: '200' })) >= 1, 'map counted');
      assert.ok(!samples.some((s) => s.name.startsWith('webdata_http_requests') && /[0-9a-f]{8}-[0-9a-f]{4}/.test(s.labels.route ?? '')), 'a route carries a job id');
      assert.ok(samples.some((s) => s.name === 'webdata_http_request_duration_seconds_count' && s.labels.route === '/v2/crawl' && s.value === 1), 'request durations');

      // Pages stored by kind equal the run's stored documents.
      const byKind = Object.fromEntries(counter(samples, 'webdata_pages_stored').map((s) => [s.labels.kind, s.value]));
      assert.equal(sum(counter(samples, 'webdata_pages_stored')), counts.documents, JSON.stringify(byKind));
      assert.equal(sum(counter(samples, 'webdata_pages_stored')), result.documents);

      // Credits by stage equal the run's credit report.
      for (const [stage, credits] of Object.entries(result.credits.byStage)) {
        if (!credits) continue;
        assert.equal(sum(counter(samples, 'webdata_credits', { stage })), credits, `credits of ${stage}`);
      }
      assert.equal(sum(counter(samples, 'webdata_credits')), result.credits.spent);

      // Job and run durations: one crawl job observed, a positive run duration.
      const jobCount = samples.find((s) => /^webdata_job_duration_seconds_count$/.test(s.name) && s.labels.kind === 'crawl');
      assert.equal(jobCount?.value, 1, 'one crawl job duration');
      const runSum = samples.find((s) => /^webdata_pipeline_duration_seconds_sum$/.test(s.name) && s.labels.status === 'completed');
      assert.ok((runSum?.value ?? 0) > 0, 'run duration recorded');
      // Labelled by the run's tenant: requests, pages stored, credits, finished runs.
      assert.ok(sum(counter(samples, 'webdata_http_requests', { method: 'POST', route: '/v2/crawl', tenant: 'acme' })) === 1, 'requests carry the tenant');
      assert.equal(sum(counter(samples, 'webdata_pages_stored', { tenant: 'acme' })), counts.documents, 'pages stored carry the tenant');
      assert.equal(sum(counter(samples, 'webdata_credits', { tenant: 'acme' })), result.credits.spent, 'credits carry the tenant');
      assert.equal(sum(counter(samples, 'webdata_pipeline_runs', { status: 'completed', tenant: 'acme' })), 1, 'the run counted under its tenant');

      // No 429 in this run: the rate-limit counter is absent or zero.
      assert.equal(sum(counter(samples, 'webdata_rate_limited')), 0);
      assert.ok(!text.includes(stack.service.apiKey), 'the API key is on the metrics endpoint');
    });

    test('the run and every activity it scheduled carry priority fairnessKey = tenant; WebdataTenant lists it', async () => {
      const handle = stack.temporal.client.workflow.getHandle(runId);
      const description = await handle.describe();
      assert.equal(description.typedSearchAttributes.get(TENANT), 'acme');
      const history = await handle.fetchHistory();
      const started = history.events?.find((e) => e.workflowExecutionStartedEventAttributes)?.workflowExecutionStartedEventAttributes;
      assert.equal(started?.priority?.fairnessKey, 'acme');
      assert.equal(started?.priority?.priorityKey, 2);
      const scheduled = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : []));
      assert.ok(scheduled.length >= 3, `activities scheduled: ${scheduled.length}`);
      for (const a of scheduled) {
        assert.equal(a.priority?.fairnessKey, 'acme', `${a.activityType?.name} carries the tenant`);
        assert.equal(a.priority?.priorityKey, 2, `${a.activityType?.name} carries the priority key`);
      }
      const listed = await listTenantRuns(stack.temporal.client, 'acme');
      assert.ok(listed.some((r) => r.workflowId === runId && r.status === 'COMPLETED'), JSON.stringify(listed));
      assert.deepEqual(await listTenantRuns(stack.temporal.client, 'nobody'), []);
    });

    test('a job that stops moving: status, the run\'s UI details and the metric say "no progress" before the rule fires', { timeout: 600_000 }, async () => {
      const site = stack.service.siteUrl as string;
      // The crawl scrapes 3 pages and then stands still; the stall time is long, so the run is
      // cancelled by the test once every view showed it (the rule itself: test/chaos/restart.chaos.ts).
      stack.service.handle.faults.set('local', { stallJobsAfterPages: 3 });
      const handle = await startPipeline(
        stack.temporal.client,
        {
          url: `${site}/`, tenant: 'acme', crawl: { limit: 10 }, stallAfterMs: 600_000, polling: { minIntervalMs: 1_000, maxIntervalMs: 5_000 },
          stages: { map: false, select: false, batch: false, interact: false, support: false },
        },
        { taskQueue, workflowId: `observe-stall-${Date.now()}` },
      );
      try {
        let lines: string[] = [];
        await until('webdata status shows no progress', async () => {
          lines = renderProgress(await handle.query(progressQuery));
          return lines.some((l) => /^ {12}no progress for 1 min \(job [0-9a-f-]+ at 3\/\d+; stalled at 10 min\)$/.test(l));
        }, 300_000);
        // The UI's details are written at the status reads (every 5 s here): they catch up.
        await until('the UI details show no progress', async () => {
          const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
          return /\| crawl \| running \| 3 \| 3 \| no progress for 1 min \(job [0-9a-f-]+ at 3\/\d+; stalled at 10 min\) \|/.test(meta.currentDetails ?? '');
        }, 60_000);
        await until('the metric shows a minute without progress', async () => {
          const gauge = (await scrape()).samples.find((x) => x.name === 'webdata_job_no_progress_seconds' && x.labels.kind === 'crawl');
          return (gauge?.value ?? 0) >= 60;
        }, 60_000);
      } finally {
        stack.service.handle.faults.set('local', undefined);
        await handle.cancel();
      }
      await assert.rejects(handle.result());
    });

    test('the worker log: one JSON object per line, stage transitions from the workflow, no bundler statistics at INFO', async () => {
      await until('stage logs', () => worker.output().includes('"pipeline finished"'), 30_000);
      const lines = worker.output().split('\n').filter((l) => l.trim() !== '');
      if (process.env.WEBDATA_LOG_DUMP) writeFileSync(process.env.WEBDATA_LOG_DUMP, lines.join('\n'));
      const entries = lines.map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          assert.fail(`not a JSON line: ${line.slice(0, 300)}`);
        }
      });
      const started = entries.filter((e) => e.message === 'stage started' && e.workflowId === runId).map((e) => e.stage);
      assert.deepEqual(started, ['map', 'select', 'crawl', 'batch'], 'each stage start logged once (replay-safe logger)');
      const finished = entries.filter((e) => e.message === 'stage finished' && e.workflowId === runId);
      assert.equal(finished.length, 4);
      assert.ok(entries.some((e) => e.message === 'pipeline finished' && e.status === 'completed'));
      assert.ok(!entries.some((e) => e.level === 'INFO' && typeof e.message === 'string' && /\n(asset |modules by )/.test(`\n${e.message}`)), 'webpack statistics logged at INFO');
      assert.ok(!worker.output().includes(stack.service.apiKey), 'the API key is in the worker log');
    });
  });
});
