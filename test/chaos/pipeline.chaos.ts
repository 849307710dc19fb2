// Chaos scenarios 1-3 on one map → select → crawl → batch pipeline (interact off), each compared
// with a clean run of the same input on the same demo site: status, stored URL set, credits.
//   1. the worker is SIGKILLed at random moments and restarted each time;
//   2. the Temporal dev server is stopped and restarted (same SQLite file, same port) mid-run;
//   3. the service injects 5xx, 429 storms with Retry-After, latency, and drops every webhook.
// Run with `npm run test:chaos` (CHAOS_PROFILE=ci for the short profile). Not part of `npm test`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebDataClient } from '../../packages/client/src/client.js';
import { startPipeline, type PipelineHandle } from '../../src/client/pipeline.js';
import { STAGE } from '../../src/search-attributes.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { startWebhookServer, type WebhookServer } from '../../src/webhooks/index.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import type { FaultConfig } from '../../packages/service/src/core/faults.js';
import { quietTemporalLogs } from '../helpers/temporal.js';
import {
  chaosProfile, prebuiltWorkflowBundle, seededRandom, sleep, spawnWorker, startRecordingService, startTemporalServer,
  TEST_KEY, WEBHOOK_SECRET, WORKER_KEY,
  type RecordedRequest, type RecordingService, type TemporalServer, type WorkerProcess,
} from './harness.js';
import { eventMs, historyFigures, recordScenario, seconds, stats } from './report.js';
import { allowPrivateHosts } from '../helpers/private-hosts.js';
import { localActivities } from '../helpers/local-activities.js';

const profile = chaosProfile();
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TASK_QUEUE = 'chaos';
// The service's default page (100 items): a collector is a few calls, so the kill moments,
// drawn among calls, spread over every stage instead of piling up in the collectors.
const COLLECT_PAGE_SIZE = 100;

let dir: string;
let temporal: TemporalServer;
let service: RecordingService;
let webhook: WebhookServer;
let api: WebDataClient;
let store: FilesystemStore;
let bundlePath: string;
let worker: WorkerProcess | undefined;
const workerLog: string[] = [];
// The workflow each delivery the receiver answered named (a delivery of an earlier scenario's
// run can arrive late: the service retries a failed one after 1, 5 and 15 s).
const webhookWorkflowIds: Array<string | undefined> = [];

before(async () => {
  quietTemporalLogs();
  dir = mkdtempSync(join(tmpdir(), 'webdata-chaos-'));
  temporal = await startTemporalServer({ dbFilename: join(dir, 'temporal.db') });
  service = await startRecordingService({ sitePages: profile.sitePages });
  webhook = await startWebhookServer({
    client: temporal.client,
    secret: WEBHOOK_SECRET,
    onDecision: (d) => webhookWorkflowIds.push(d.workflowId),
  });
  // Runs name the receiver on 127.0.0.1 as their webhookUrl (the site is allowed by the harness).
  allowPrivateHosts(webhook.url);
  api = new WebDataClient({ apiKey: TEST_KEY, baseUrl: service.url });
  store = new FilesystemStore({ root: join(dir, 'store') });
  bundlePath = await prebuiltWorkflowBundle(dir);
  worker = await startWorker();
});

after(async () => {
  await worker?.kill('SIGKILL');
  await webhook?.close();
  await api?.close();
  await store?.close();
  await service?.close();
  await temporal?.close();
  if (dir && process.env.CHAOS_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
});

async function startWorker(): Promise<WorkerProcess> {
  const w = spawnWorker({
    temporalAddress: temporal.address,
    serviceUrl: service.url,
    apiKey: WORKER_KEY,
    store: join(dir, 'store'),
    taskQueue: TASK_QUEUE,
    bundlePath,
    collectPageSize: COLLECT_PAGE_SIZE,
  }, workerLog);
  await w.ready;
  return w;
}

const input = (): PipelineInput => ({
  url: `${service.siteUrl}/`,
  select: { include: ['^/blog/post-', '^/docs/', '^/shop/item-'] },
  // Query variants (/shop/item-3?color=red) are deduplicated, so which pages a limited crawl
  // reaches first cannot change the stored set: crawl ∪ batch is always the selection (+ /).
  crawl: { limit: profile.crawlLimit, ignoreQueryParameters: true, scrapeOptions: { maxAge: 0 } },
  // No cache anywhere: every run fetches every page again, so runs take the same time and
  // the kills land in the same stages as in the clean run.
  map: { ignoreCache: true },
  batch: { scrapeOptions: { maxAge: 0 } },
  stages: { interact: false },
  webhookUrl: webhook.url,
});

interface RunFigures {
  id: string;
  result: PipelineResult;
  urls: string[];
  /** Credits the service's ledger charged while the run was going. */
  charged: number;
  crawlJobs: string[];
  batchJobs: string[];
  startedAt: number;
  endedAt: number;
  requests: RecordedRequest[];
}

let seq = 0;
async function launch(name: string): Promise<{ handle: PipelineHandle; startedAt: number; ledgerFrom: number; requestsFrom: number }> {
  const ledgerFrom = service.ledger.length;
  const requestsFrom = service.requests.length;
  const startedAt = Date.now();
  const handle = await startPipeline(temporal.client, input(), { taskQueue: TASK_QUEUE, workflowId: `chaos-${name}-${Date.now()}-${++seq}` });
  return { handle, startedAt, ledgerFrom, requestsFrom };
}

async function settle(run: Awaited<ReturnType<typeof launch>>, result: PipelineResult): Promise<RunFigures> {
  const endedAt = Date.now();
  // Kept for post-mortems (.data is git-ignored): the run's history and what the service saw.
  const debugDir = join(ROOT, '.data', 'chaos', 'runs');
  mkdirSync(debugDir, { recursive: true });
  writeFileSync(join(debugDir, `${run.handle.workflowId}.json`), JSON.stringify({
    history: await run.handle.fetchHistory(),
    requests: service.requests.slice(run.requestsFrom),
    ledger: service.ledger.slice(run.ledgerFrom),
    activity: (await api.listActivity({ limit: 100 })).data,
  }, null, 1));
  const urls: string[] = [];
  for await (const doc of store.readDocuments(run.handle.workflowId)) if (doc.kind === 'crawl' || doc.kind === 'batch') urls.push(doc.url);
  const charged = service.ledger.slice(run.ledgerFrom).reduce((n, e) => n + e.credits, 0);
  const activity = async (endpoint: 'crawl' | 'batch_scrape') =>
    // The service runs in this process: its created_at and Date.now() share one clock.
    (await api.listActivity({ endpoint, limit: 100 })).data.filter((e) => Date.parse(e.created_at) >= run.startedAt && Date.parse(e.created_at) <= endedAt).map((e) => e.id);
  return {
    id: run.handle.workflowId,
    result,
    urls,
    charged: Math.round(charged * 100) / 100,
    crawlJobs: await activity('crawl'),
    batchJobs: await activity('batch_scrape'),
    startedAt: run.startedAt,
    endedAt,
    requests: service.requests.slice(run.requestsFrom),
  };
}

let clean: RunFigures | undefined;

/** What a scenario's outcome line says, from the same comparisons the assertions make. */
function outcome(run: RunFigures, extra: string[] = []): string {
  if (!clean) return run.result.status;
  const sameUrls = run.urls.length === clean.urls.length && [...run.urls].sort().join() === [...clean.urls].sort().join();
  const parts = [
    run.result.status,
    sameUrls ? 'same stored URLs as clean' : 'stored URLs DIFFER from clean',
    run.urls.length === new Set(run.urls).size ? 'each stored once' : 'DUPLICATES stored',
    run.charged === clean.charged ? 'same credits' : `credits ${run.charged} vs ${clean.charged}`,
    run.crawlJobs.length === 1 && run.batchJobs.length === 1 ? 'one crawl and one batch job' : `${run.crawlJobs.length} crawl / ${run.batchJobs.length} batch jobs`,
    ...extra,
  ];
  return parts.join('; ');
}

function creditsByReason(run: RunFigures): string {
  const sums = new Map<string, number>();
  for (const e of service.ledger.filter((l) => l.at >= run.startedAt && l.at <= run.endedAt)) sums.set(e.reason, (sums.get(e.reason) ?? 0) + e.credits);
  return [...sums.entries()].map(([r, n]) => `${r} ${n}`).join(', ');
}

/** The invariants every scenario checks against the clean run. */
function assertSameAsClean(run: RunFigures, what: string): void {
  assert.ok(clean, 'the clean run did not complete');
  assert.equal(run.result.status, 'completed', `${what}: ${JSON.stringify(run.result.stages)}`);
  for (const stage of ['map', 'select', 'crawl', 'batch'] as const) {
    assert.equal(run.result.stages[stage]?.status, clean.result.stages[stage]?.status, `${what}: ${stage} status`);
  }
  assert.equal(new Set(run.urls).size, run.urls.length, `${what}: a page was stored twice`);
  assert.deepEqual([...run.urls].sort(), [...clean.urls].sort(), `${what}: stored URL set differs from the clean run`);
  assert.equal(run.crawlJobs.length, 1, `${what}: crawl jobs started: ${run.crawlJobs.join(', ')}`);
  assert.equal(run.batchJobs.length, 1, `${what}: batch jobs started: ${run.batchJobs.join(', ')}`);
  assert.deepEqual(run.crawlJobs, [run.result.stages.crawl?.jobId]);
  assert.deepEqual(run.batchJobs, [run.result.stages.batch?.jobId]);
  assert.equal(run.charged, clean.charged, `${what}: the service charged ${run.charged} credits, the clean run ${clean.charged}`);
  assert.equal(run.result.credits.spent, clean.result.credits.spent, `${what}: credits spent per the workflow`);
  assert.equal(run.result.documents, clean.result.documents);
}

/**
 * When each stage began, from the run's history: the first activity each stage schedules (the
 * crawl's start is a local activity, recorded by its marker).
 */
async function stageStarts(handle: PipelineHandle): Promise<Map<string, number>> {
  const firstActivity: Record<string, string> = { mapToStore: 'map', selectUrls: 'select', startCrawl: 'crawl', diffUrls: 'batch' };
  const starts = new Map<string, number>();
  const events = (await handle.fetchHistory()).events ?? [];
  const localTypes = new Map(localActivities(events).map((call) => [call.event, call.type]));
  for (const e of events) {
    const stage = firstActivity[e.activityTaskScheduledEventAttributes?.activityType?.name ?? localTypes.get(e) ?? ''];
    if (stage && !starts.has(stage)) starts.set(stage, eventMs(e));
    if (e.workflowExecutionCompletedEventAttributes) starts.set('done', eventMs(e));
  }
  return starts;
}

/**
 * The run's result, also across a Temporal server outage: the client's long poll gives up
 * after a few seconds without a server (UNAVAILABLE), so it is asked again.
 */
async function resultOf(handle: PipelineHandle): Promise<PipelineResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await handle.result();
    } catch (err) {
      const text = `${String(err)} ${String((err as { cause?: unknown }).cause ?? '')}`;
      if (attempt >= 300 || !/UNAVAILABLE|ECONNREFUSED|DEADLINE_EXCEEDED/.test(text)) throw err;
      await sleep(1000);
    }
  }
}

/** The run's stage from its search attribute; undefined while the server cannot answer. */
async function stageNow(handle: PipelineHandle): Promise<string | undefined> {
  try {
    return String((await handle.describe()).typedSearchAttributes.get(STAGE) ?? '');
  } catch {
    return undefined;
  }
}

const KILL_STAGES = ['map', 'select', 'crawl', 'batch'] as const;
let stageMs: Record<string, number> = {};

test('clean runs (a warm-up and the reference): identical', { timeout: profile.scenarioTimeoutMs }, async () => {
  // The first run warms the service's caches; the second is the reference the scenarios
  // compare with, and the two must agree, or no comparison would mean anything.
  const runs: RunFigures[] = [];
  let stages = new Map<string, number>();
  for (const name of ['warmup', 'clean']) {
    const run = await launch(name);
    const result = await resultOf(run.handle);
    stages = await stageStarts(run.handle);
    runs.push(await settle(run, result));
  }
  const [warmup, reference] = runs;
  clean = reference;
  const result = reference.result;
  assert.equal(result.status, 'completed', JSON.stringify(result.stages));
  assert.equal(new Set(reference.urls).size, reference.urls.length);
  assert.ok(reference.urls.length >= profile.crawlLimit, `only ${reference.urls.length} pages stored`);
  assert.ok((result.stages.batch?.documents ?? 0) > 0, 'the batch stage scraped nothing: the scenarios would not exercise it');
  assertSameAsClean(warmup, 'two clean runs');
  const order = [...KILL_STAGES, 'done'];
  const startOf = (i: number): number => stages.get(order[i]) ?? (i + 1 < order.length ? startOf(i + 1) : 0);
  stageMs = Object.fromEntries(KILL_STAGES.map((s, i) => [s, Math.max(0, startOf(i + 1) - startOf(i))]));
  assert.ok(Object.values(stageMs).every((ms) => ms >= 0 && ms < profile.scenarioTimeoutMs), JSON.stringify(stageMs));
  recordScenario(profile.name, '0-clean', {
    scenario: '0. clean run',
    injected: 'nothing (reference; a warm-up run before it gave the same result)',
    outcome: result.status,
    figures: {
      pages: reference.urls.length,
      'crawl / batch pages': `${result.stages.crawl?.documents ?? 0} / ${result.stages.batch?.documents ?? 0}`,
      credits: `${reference.charged} (${creditsByReason(reference)})`,
      duration: seconds(reference.endedAt - reference.startedAt),
      'stage durations': KILL_STAGES.map((s) => `${s} ${seconds(stageMs[s])}`).join(', '),
      'worker requests': reference.requests.filter((r) => r.key === WORKER_KEY).length,
      'webhooks received': webhookWorkflowIds.filter((id) => id === reference.id).length,
    },
  });
});

test(`1. worker SIGKILLed at ${profile.kills} random moments`, { timeout: profile.scenarioTimeoutMs }, async () => {
  assert.ok(clean, 'needs the clean run');
  const cleanMs = clean.endedAt - clean.startedAt;
  const random = seededRandom(profile.seed);
  // Random moments of the pipeline's own progress: the worker is killed when the run's k-th
  // distinct call reaches the service (a call is method + path: a retry, a repeated status poll
  // or another page of the same job is not progress, a new route or job is), k drawn among the clean run's distinct
  // calls; alternately as the call arrives (in flight) and as its answer is sent (just after),
  // each caught in the same tick, not after a sleep the run could outpace. So the kills spread
  // over the stages (map, job starts, polls, collector pages, error lists) and each one comes
  // after the restarted worker moved the run forward.
  // A call is counted by method and path, not its query: which cursors (`?skip=`) a collector
  // reads depends on how far the job got between reads, and a run slowed down by the kills can
  // read fewer of them than the clean run, which left a late k unreached (seen in a stressed
  // CI). Every path the clean run calls, the killed run calls too.
  const callOf = (method: string, url: string) => `${method} ${url.split('?')[0]}`;
  const distinct = (requests: Array<{ key: string; method: string; url: string }>) =>
    new Set(requests.filter((r) => r.key === WORKER_KEY).map((r) => callOf(r.method, r.url))).size;
  const span = Math.max(profile.kills, distinct(clean.requests));
  const points = new Set<number>();
  for (let guard = 0; points.size < profile.kills && guard < 10_000; guard++) points.add(1 + Math.floor(random() * span));
  const plan = [...points].sort((a, b) => a - b).map((k, i) => ({ k, afterAnswer: i % 2 === 1 }));
  const run = await launch('kills');
  let done = false;
  const resultP = resultOf(run.handle).finally(() => { done = true; });
  resultP.catch(() => undefined);

  // The k-th distinct call is caught as it arrives (not by polling), so a fast collector cannot
  // run past a moment while the test looks elsewhere.
  const seen = new Set<string>();
  interface Reached { route: string; answered?: Promise<void> }
  let watch: { k: number; hit: (reached: Reached) => void } | undefined;
  const unsubscribe = service.onArrival(({ key, route, method, url, answered }) => {
    if (key !== WORKER_KEY || seen.has(callOf(method, url))) return;
    seen.add(callOf(method, url));
    if (watch && seen.size >= watch.k) {
      const w = watch;
      watch = undefined;
      w.hit({ route, answered });
    }
  });
  const reached = (k: number) => new Promise<Reached>((resolve) => {
    watch = { k, hit: resolve };
    if (seen.size >= k) {
      watch = undefined;
      resolve({ route: '(passed during the last kill)' });
    }
  });

  interface Kill { planned: string; at: number; restartedAt: number; trigger: string; stage: string; inFlight: string[]; stored: number; next: string; resumedAt?: number }
  const kills: Kill[] = [];
  let current = worker as WorkerProcess;
  const identityOf = (w: WorkerProcess) => `${w.child.pid}@`;
  const stageOf = async () => (await stageNow(run.handle)) ?? '?';
  try {
    for (const { k, afterAnswer } of plan) {
      const hit = await Promise.race([reached(k), resultP.then(() => undefined, () => undefined)]);
      if (done || !hit) break;
      const trigger = hit.route;
      if (afterAnswer && hit.answered) await hit.answered;
      if (done) break;
      const inFlight = service.inFlight(WORKER_KEY);
      const at = Date.now();
      await current.kill('SIGKILL');
      const stage = await stageOf();
      const stored = (await store.count(run.handle.workflowId)).documents;
      const restartedAt = Date.now();
      current = await startWorker();
      worker = current;
      kills.push({ planned: `call ${k} ${afterAnswer ? 'answered' : 'arriving'}`, at, restartedAt, trigger, stage, inFlight, stored, next: identityOf(current) });
    }
  } finally {
    unsubscribe();
    watch = undefined;
  }
  const result = await resultP;
  const figures = await settle(run, result);
  const history = await run.handle.fetchHistory();
  const h = historyFigures(history);
  // Time to resume: from the kill to the restarted worker's first call for the run (the
  // killed one makes none after its death, and the test uses another key).
  const calls = figures.requests.filter((r) => r.key === WORKER_KEY);
  for (const k of kills) k.resumedAt = calls.find((r) => r.at >= k.restartedAt)?.at;
  const recoveries = kills.filter((k) => k.resumedAt !== undefined).map((k) => (k.resumedAt as number) - k.at);
  const r = stats(recoveries);
  for (const k of kills) {
    console.log(`kill (${k.planned}, ${k.trigger}): stage ${k.stage}, in flight [${k.inFlight.join(', ')}], ${k.stored} pages stored, resumed after ${k.resumedAt ? seconds(k.resumedAt - k.at) : '-'}`);
  }
  recordScenario(profile.name, '1-kills', {
    scenario: '1. worker SIGKILL',
    injected: `${kills.length} SIGKILLs of the worker process at random moments (when the run's k-th distinct call reaches the service, alternately on its arrival and as its answer is sent; k drawn with seed ${profile.seed}), restarted at once each time; ${clean.urls.length} pages`,
    outcome: outcome(figures),
    figures: {
      kills: kills.length,
      'kills by stage': Object.entries(kills.reduce<Record<string, number>>((m, k) => ({ ...m, [k.stage]: (m[k.stage] ?? 0) + 1 }), {})).map(([s, n]) => `${s} ${n}`).join(', '),
      'kills with a request in flight': kills.filter((k) => k.inFlight.length > 0).length,
      'calls killed at': Object.entries(kills.reduce<Record<string, number>>((m, k) => ({ ...m, [k.trigger]: (m[k.trigger] ?? 0) + 1 }), {})).map(([r, n]) => `${r} ${n}`).join(', '),
      'activity retries': `${h.retries} (${Object.entries(h.retriedByType).map(([t, n]) => `${t} ${n}`).join(', ')})`,
      'time to resume (min/median/max)': `${seconds(r.min)} / ${seconds(r.median)} / ${seconds(r.max)}`,
      duration: `${seconds(figures.endedAt - figures.startedAt)} (clean ${seconds(cleanMs)})`,
      'pages stored': `${figures.urls.length} (duplicates ${figures.urls.length - new Set(figures.urls).size})`,
      'crawl / batch jobs': `${figures.crawlJobs.length} / ${figures.batchJobs.length}`,
      credits: `${figures.charged} (${creditsByReason(figures)}; clean ${clean.charged})`,
    },
  });
  assert.equal(kills.length, profile.kills, `the run completed after only ${kills.length} kills`);
  assertSameAsClean(figures, 'after the kills');
  assert.ok(h.retries > 0, 'no activity was retried: no kill hit an activity');
});

test('2. Temporal dev server stopped and restarted mid-run (same --db-filename)', { timeout: profile.scenarioTimeoutMs }, async () => {
  assert.ok(clean, 'needs the clean run');
  const run = await launch('temporal-restart');
  let done = false;
  const resultP = resultOf(run.handle).finally(() => { done = true; });
  resultP.catch(() => undefined);
  const outages: Array<{ stage: string; downMs: number; stoppedAt: number; startedAt: number }> = [];
  // Stop it while the crawl runs, and (full profile) again right after the batch start: the
  // worker's call that starts each job is the cue, caught as it reaches the service.
  const cues = profile.name === 'full' ? [['crawl', 'POST /v2/crawl'], ['batch', 'POST /v2/batch/scrape']] : [['crawl', 'POST /v2/crawl']];
  const downMs = profile.name === 'full' ? 8_000 : 4_000;
  const seenRoutes = new Set<string>();
  let cue: { route: string; hit: () => void } | undefined;
  const unsubscribe = service.onArrival(({ key, route }) => {
    if (key !== WORKER_KEY) return;
    seenRoutes.add(route);
    if (cue?.route === route) {
      const c = cue;
      cue = undefined;
      c.hit();
    }
  });
  try {
    for (const [stage, route] of cues) {
      const reached = new Promise<void>((resolve) => {
        cue = { route, hit: resolve };
        if (seenRoutes.has(route)) resolve();
      });
      await Promise.race([reached, resultP.then(() => undefined, () => undefined)]);
      if (done) break;
      await sleep(300);
      const stoppedAt = Date.now();
      await temporal.stop();
      await sleep(downMs);
      // The worker may reconnect and finish before the probe in start() sees the server: the
      // outage ends when the new server process is launched.
      const startedAt = Date.now();
      await temporal.start();
      outages.push({ stage, downMs: startedAt - stoppedAt, stoppedAt, startedAt });
      assert.equal(worker?.child.exitCode, null, `the worker exited during the outage: ${worker?.output().slice(-2000)}`);
    }
  } finally {
    unsubscribe();
  }
  const stages = cues.map(([stage]) => stage);
  const result = await resultP;
  const figures = await settle(run, result);
  const history = await run.handle.fetchHistory();
  const h = historyFigures(history);
  const recoveries = outages.map((o) => {
    const next = (history.events ?? []).find((e) => eventMs(e) >= o.startedAt && (e.workflowTaskCompletedEventAttributes || e.activityTaskCompletedEventAttributes));
    return next ? eventMs(next) - o.startedAt : undefined;
  });
  recordScenario(profile.name, '2-temporal', {
    scenario: '2. Temporal restart',
    injected: `dev server stopped (SIGTERM) mid-run, ${outages.map((o) => `${seconds(o.downMs)} down in ${o.stage}`).join(', ')} (from SIGTERM to the new server process), restarted on the same port and SQLite file`,
    outcome: outcome(figures, [worker?.child.exitCode === null ? 'the worker reconnected by itself' : 'the worker DIED']),
    figures: {
      outages: outages.length,
      'activity retries': h.retries,
      'time from restart to the next task completed': recoveries.map((ms) => (ms === undefined ? '- (no task after the restart)' : seconds(ms))).join(', '),
      duration: `${seconds(figures.endedAt - figures.startedAt)} (clean ${seconds(clean.endedAt - clean.startedAt)})`,
      'pages stored': figures.urls.length,
      'crawl / batch jobs': `${figures.crawlJobs.length} / ${figures.batchJobs.length}`,
      credits: `${figures.charged} (clean ${clean.charged})`,
    },
  });
  assert.equal(outages.length, stages.length, 'the run ended before every outage');
  assertSameAsClean(figures, 'after the Temporal restart');
});

test('3. 5xx, 429 storms with Retry-After, latency and lost webhooks', { timeout: profile.scenarioTimeoutMs }, async () => {
  assert.ok(clean, 'needs the clean run');
  const statuses = [500, 502, 503, 504];
  // 5xx on a fixed schedule (every k-th eligible request of the team, phase from the seed),
  // so the amount injected does not depend on how the run's requests interleave.
  const errorOffset = profile.seed % profile.errorEvery;
  const base = (i: number): FaultConfig => ({
    errorEvery: profile.errorEvery,
    errorOffset,
    errorStatus: statuses[i % statuses.length],
    latencyMs: profile.latencyMs,
    webhookDropRate: 1,
  });
  service.app.faults.set('local', base(0));
  const webhooksBefore = webhookWorkflowIds.length;
  // Storms are cued by the worker's own requests: the one that starts a storm arrives while it
  // is set, so every storm meets at least one request, on any machine speed.
  let storms = 0;
  let nextStormAt = Infinity;
  const workerRequestsBefore = service.arrived(WORKER_KEY);
  const unsubscribe = service.onArrival(({ key, count }) => {
    if (key !== WORKER_KEY || storms >= profile.storms) return;
    const now = Date.now();
    const first = storms === 0 && count - workerRequestsBefore >= 3;
    if (!first && now < nextStormAt) return;
    service.app.faults.set('local', { ...base(storms + 1), rateLimitStorm: { until: now + profile.stormMs, retryAfterSec: profile.retryAfterSec } });
    storms += 1;
    nextStormAt = now + profile.stormMs + profile.stormGapMs;
  });
  const run = await launch('faults');
  const resultP = resultOf(run.handle);
  try {
    await resultP;
  } finally {
    unsubscribe();
    service.app.faults.set('local', undefined);
  }
  const result = await resultP;
  const figures = await settle(run, result);
  const h = historyFigures(await run.handle.fetchHistory());

  // After every 429 with Retry-After N, the worker's next request on that route comes ≥ N s later.
  const mine = figures.requests.filter((r) => r.key === WORKER_KEY).sort((a, b) => a.at - b.at);
  const rateLimited = mine.filter((r) => r.status === 429 && r.retryAfterSec !== undefined);
  const violations: string[] = [];
  const slack: number[] = [];
  for (const r of rateLimited) {
    const next = mine.find((n) => n.route === r.route && n.at > r.at);
    if (!next) continue;
    // From when the 429 was written: the client cannot have read it before then.
    const waited = next.at - r.answeredAt;
    slack.push(waited - (r.retryAfterSec as number) * 1000);
    if (waited < (r.retryAfterSec as number) * 1000) {
      violations.push(`${r.route}: 429 (Retry-After ${r.retryAfterSec}) answered at ${r.answeredAt}, next request ${waited} ms later`);
    }
  }
  const injected5xx = mine.filter((r) => r.fault === 'error').length;
  const eligible = mine.filter((r) => r.fault !== 'rate_limit_storm').length;
  // The schedule promises floor((eligible + offset) / k); floor(eligible / k) is a safe floor of it.
  const promised5xx = Math.floor(eligible / profile.errorEvery);
  const during = webhookWorkflowIds.slice(webhooksBefore);
  const webhooksReceived = during.filter((id) => id === run.handle.workflowId).length;
  const lateFromEarlierRuns = during.length - webhooksReceived;
  const s = stats(slack);
  recordScenario(profile.name, '3-faults', {
    scenario: '3. service faults',
    injected: `5xx (500/502/503/504) on every ${profile.errorEvery}th eligible request (offset ${errorOffset}) on every route, +${profile.latencyMs} ms latency, ${storms} storms of 429 (${seconds(profile.stormMs)}, Retry-After ${profile.retryAfterSec} s), every webhook dropped`,
    outcome: outcome(figures, [`${violations.length} requests before Retry-After`]),
    figures: {
      'worker requests': mine.length,
      'eligible requests (not met by a storm)': eligible,
      '5xx answered': `${injected5xx} (promised at least ${promised5xx})`,
      '429 answered': rateLimited.length,
      'requests delayed by Retry-After': slack.length,
      'wait beyond Retry-After (min/median/max)': `${s.min} / ${s.median} / ${s.max} ms`,
      'requests sent before Retry-After passed': violations.length,
      'activity retries': `${h.retries} (${Object.entries(h.retriedByType).map(([t, n]) => `${t} ${n}`).join(', ')})`,
      'webhooks received': webhooksReceived,
      'late deliveries of earlier runs (not counted)': lateFromEarlierRuns,
      duration: `${seconds(figures.endedAt - figures.startedAt)} (clean ${seconds(clean.endedAt - clean.startedAt)})`,
      credits: `${figures.charged} (clean ${clean.charged})`,
    },
  });
  assert.ok(storms > 0, 'the run ended before its 3rd request');
  assert.ok(rateLimited.length > 0, 'no request met a storm');
  assert.ok(eligible >= profile.errorEvery, `only ${eligible} eligible requests: too few for the 5xx schedule to mean anything`);
  assert.ok(injected5xx >= promised5xx, `${injected5xx} 5xx injected, promised at least ${promised5xx} of ${eligible} eligible requests`);
  assert.deepEqual(violations, [], 'requests were sent before Retry-After passed');
  assert.equal(webhooksReceived, 0, 'a webhook got through although every delivery was dropped');
  assertSameAsClean(figures, 'under service faults');
});
