// Many pipelines at once, as a backend runs them (one run per customer site, schedules firing
// together): N crawls of P pages each (default 100 × 100), each on its own demo site, started
// at the same moment. Side by side in one run:
//   1. the service's ceiling: the same N crawls started directly through the service API and
//      collected by a hand loop (lib/direct-clients.ts) — no Temporal;
//   2. N pipelines on one worker process, then on two (same task queue), with the webhook
//      receiver (README "Run the worker in production").
// Prints aggregate pages/s and its ratio to the ceiling, p50/p95 run latency, where the wall
// time went, worker CPU and peak RSS, the history of the largest run and the worker settings.
// Fails (exit 1) when a run's store does not hold exactly its site's pages.
//
// With --wide=1000x10 (issue 27; npm run bench runs it last, alone: it takes minutes) the wide row: 1,000
// pipelines of 10 pages at once on one worker with the settings that fit them (WIDE_SETTINGS
// below, or MANY_PIPELINES_WIDE_ENV, and the heap limit WIDE_NODE_ARGS), each run's store
// checked, no ceiling phase. Every pipeline phase prints its goals, target next to measured.
//
//   node --conditions=webdata-source --import tsx bench/many-pipelines.ts [--pipelines=100] [--pipeline-pages=100] [--workers=1,2] [--wide=1000x10]
//   (or MANY_PIPELINES_WIDE; --pipelines=0 --wide=1000x10 runs the wide row alone;
//   MANY_PIPELINES_WIDE_ENV="NAME=value,..." replaces its worker settings)
//   (or MANY_PIPELINES, PAGES, MANY_PIPELINES_WORKERS; MANY_PIPELINES_WEBHOOKS=0 polls only;
//   WEBDATA_MAX_* variables reach the workers; MANY_PIPELINES_VARIANTS compares worker settings
//   side by side, e.g. "default;WEBDATA_MAX_CONCURRENT_ACTIVITIES=400"; MANY_PIPELINES_WORKER_NODE_ARGS
//   e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the workers; MEMORY_PROBE_FILE=/tmp/probe.jsonl
//   samples each worker thread's heap (lib/memory-probe.mjs) and prints the split at the peak;
//   BENCH_TIMEOUT_S bounds the whole run)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebDataClient } from '../packages/client/src/client.js';
import { startDemoSite, type DemoSite } from '../packages/service/src/demo-site/index.js';
import { FilesystemStore } from '../packages/storage/src/index.js';
import { startPipeline, type PipelineHandle } from '../src/client/pipeline.js';
import type { PipelineResult } from '../src/workflows/state.js';
import { startCountingService, diff, type CountingService } from './lib/counting-service.js';
import { handLoopCrawl } from './lib/direct-clients.js';
import { runHandLoops } from './lib/hand-loop-process.js';
import { intOption, listOption, runBench, stringOption, timeoutMs, type Closers } from './lib/harness.js';
import { eventMs, historyChain } from './lib/history.js';
import { childPids, peakRss, readCpuSeconds, readMemory, sampleProcess, type ProcessSampler } from './lib/proc-sampler.js';
import { bytes, fixed, int, ratio, seconds } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { startBenchTemporal, type BenchTemporal } from './lib/temporal.js';
import { spawnWorker, type WorkerProcess } from './lib/worker-process.js';
import { localActivities } from '../test/helpers/local-activities.js';
import { allowPrivateHostnames, allowPrivateHosts } from '../test/helpers/private-hosts.js';

/** The hand loop's sleep when a status page brings nothing new (as in pipeline-vs-direct). */
const HAND_POLL_MS = 1000;

interface Run {
  site: number;
  runId: string;
  jobId: string;
  documents: number;
  /** Start of the phase → the caller had every page stored. */
  latencyMs: number;
  /** The service's own times of the job (epoch ms). */
  createdAt: number;
  completedAt: number;
}

interface Phase {
  label: string;
  runs: Run[];
  /** Epoch ms the phase started its runs. */
  startedAt: number;
  wallMs: number;
  requests: number;
  /** Requests per route (the service's count) during the phase. */
  byRoute: Record<string, number>;
  /** CPU seconds during the phase: the bench process (service, demo sites, webhook receiver), the Temporal dev server, each client process (hand loops or worker). */
  cpu: { bench: number; temporal: number; workers: number[] };
  /** Peak RSS per client process, KiB. */
  workerPeakKb: number[];
  /** Per-run timings read from the histories (pipelines only). */
  timings?: Timings;
  historyMaxEvents?: number;
  historyLargest?: { bytes: number; event: string };
  settings?: string;
  /** Worker RSS (KiB, summed over workers) after the warm-up, before the phase's runs start. */
  idleKb?: number;
  /** Per worker, where its memory was at its highest sample (MEMORY_PROBE_FILE only). */
  memorySplit?: string[];
  /** Totals over the phase's runs (every run of each chain): history events and protobuf bytes. */
  historyEvents?: number;
  historyBytes?: number;
}

interface Stack {
  svc: CountingService;
  sites: DemoSite[];
  api: WebDataClient;
  temporal: BenchTemporal;
  dir: string;
  pages: number;
  webhooks: boolean;
  log: (line: string) => void;
}

/** Worker environment variants to compare side by side: `;`-separated, each `default` or `NAME=value[,NAME=value]`. */
export function parseVariants(raw: string | undefined): Array<Record<string, string>> {
  if (!raw) return [{}];
  return raw.split(';').map((v) => v.trim()).filter(Boolean).map((v) => v === 'default' ? {} : Object.fromEntries(v.split(',').map((kv) => {
    const [k, ...rest] = kv.split('=');
    if (!k || rest.length === 0) throw new Error(`MANY_PIPELINES_VARIANTS: "${kv}" is not NAME=value`);
    return [k.trim(), rest.join('=').trim()];
  })));
}

/**
 * Worker settings of the wide row (1,000 runs at once on one worker): the sticky cache bounded
 * so a run's cached state cannot take the worker past 1 GiB (an evicted run replays its short
 * history on its next task), and activity slots above the runs' followers the service can feed.
 */
export const WIDE_SETTINGS: Record<string, string> = {
  WEBDATA_MAX_CACHED_WORKFLOWS: '250',
  WEBDATA_MAX_CONCURRENT_ACTIVITIES: '200',
};

/**
 * Node options of the wide row's worker: a V8 heap limit for each of its threads. Without it V8
 * sizes the limit from the machine's memory (4 GiB here) and collects lazily below it: the
 * workflow thread evaluates the workflow modules again for every run it starts or replays, and
 * the RSS swung 830-1,150 MiB while that thread retains 100-170 MiB (docs/benchmarks.md, the
 * wide row). MANY_PIPELINES_WORKER_NODE_ARGS come after (the last --max-old-space-size wins).
 */
export const WIDE_NODE_ARGS = ['--max-old-space-size=384'];

export interface ManyOptions {
  /** Run the service's ceiling (hand loops) first; the wide row leaves it out. */
  ceiling?: boolean;
  /** Title of the report. */
  title?: string;
  /** Node options of the worker processes, before MANY_PIPELINES_WORKER_NODE_ARGS. */
  workerNodeArgs?: string[];
}

export async function manyPipelines(closers: Closers, log: (line: string) => void, count: number, pages: number, workerCounts: number[], webhooks: boolean, variants: Array<Record<string, string>> = [{}], options: ManyOptions = {}): Promise<void> {
  // Room above the limit so every crawl reaches exactly `pages` pages.
  const sitePages = Math.ceil(pages * 1.2) + 20;
  log(`${count} demo sites of ${sitePages} content pages, crawl limit ${pages}; workers ${workerCounts.join(', ')}; ${webhooks ? 'webhooks + polling' : 'polling only'}`);
  const svc = await startCountingService({ pages: sitePages });
  closers.add('service', () => svc.close());
  // One site per run (own port, so own origin and URLs; own seed, so own content): a run that
  // stored another run's pages, or a page twice, shows in the check.
  const sites: DemoSite[] = [svc.site];
  for (let i = 1; i < count; i++) {
    const site = await startDemoSite({ pages: sitePages, seed: 1000 + i });
    closers.add(`demo site ${i}`, () => site.close());
    sites.push(site);
  }
  const temporal = await startBenchTemporal({ webhookSecret: svc.webhookSecret, log });
  closers.add('temporal', () => temporal.close());
  // Runs crawl the demo sites and name the receiver, all on 127.0.0.1: allowed by host:port. A run
  // records the list in its input, which holds at most 100 entries: past that (100 sites and the
  // receiver, the wide row's 1,000) the bench names the host with every port, as the docs say.
  const hosts = [...sites.map((s) => s.url), temporal.webhook.url];
  if (hosts.length <= 100) allowPrivateHosts(...hosts);
  else allowPrivateHostnames(...hosts);
  const dir = mkdtempSync(join(tmpdir(), 'webdata-bench-many-'));
  closers.add('store folder', () => rmSync(dir, { recursive: true, force: true }));
  const api = new WebDataClient({ apiKey: svc.apiKey, baseUrl: svc.url });
  closers.add('api client', () => api.close());
  const stack: Stack = { svc, sites, api, temporal, dir, pages, webhooks, log };

  log('warm-up (not measured)');
  const warmStore = new FilesystemStore({ root: join(dir, 'warm') });
  closers.add('warm store', () => warmStore.close());
  await handLoopCrawl(api, warmStore, 'warm', { url: `${sites[0].url}/`, limit: 20 }, 200);

  const phases: Phase[] = options.ceiling === false ? [] : [await ceiling(stack, closers)];
  for (const workers of workerCounts) {
    for (const env of variants) phases.push(await pipelines(stack, closers, workers, env, options.workerNodeArgs ?? []));
  }
  report(phases, count, pages, webhooks, options.title);
}

/** The N crawls started directly, each collected by a hand loop into a store (in a process of its own). */
async function ceiling(stack: Stack, closers: Closers): Promise<Phase> {
  const { api, sites, pages, svc, log } = stack;
  const storeRoot = join(stack.dir, 'direct');
  log(`service ceiling: ${sites.length} crawls at once, hand loop`);
  const before = svc.snapshot();
  const cpu0 = cpuNow([]);
  const t0 = Date.now();
  const out = await runHandLoops({ apiUrl: svc.url, apiKey: svc.apiKey, storeRoot, urls: sites.map((s) => `${s.url}/`), runPrefix: 'direct-', limit: pages, pollMs: HAND_POLL_MS });
  const results = out.runs;
  const wallMs = Math.max(...results.map((r) => r.endedAt)) - t0;
  // The client process reports its own CPU and peak RSS (it has exited; /proc has nothing left).
  const cpu = { ...cpuSince(cpu0, []), workers: [out.cpuSeconds] };
  const { requests, byRoute } = diff(svc.snapshot(), before);
  const runs: Run[] = results.map((r, i) => ({ site: i, runId: r.runId, jobId: r.jobId, documents: r.documents, latencyMs: r.endedAt - t0, createdAt: Number.NaN, completedAt: Number.NaN }));
  await jobTimes(api, runs);
  const store = new FilesystemStore({ root: storeRoot });
  closers.add('direct store', () => store.close());
  await checkStores(store, sites, runs, pages, 'service ceiling');
  log(`service ceiling: ${summary(runs, wallMs)}`);
  return { label: `service ceiling (${sites.length} crawls, hand loop)`, runs, startedAt: t0, wallMs, requests, byRoute, cpu, workerPeakKb: [out.maxRssKb] };
}

/** The N pipelines at once on `workerCount` worker processes sharing one task queue. */
async function pipelines(stack: Stack, closers: Closers, workerCount: number, env: Record<string, string>, nodeArgs: string[]): Promise<Phase> {
  const { api, sites, pages, svc, temporal, log } = stack;
  const stamp = Date.now();
  const taskQueue = `many-${workerCount}w-${stamp}`;
  const storeRoot = join(stack.dir, `workers-${workerCount}-${stamp}`);
  const args = [...nodeArgs, ...(process.env.MANY_PIPELINES_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  const envLabel = [...Object.entries(env).map(([k, v]) => `${k.replace(/^WEBDATA_/, '')}=${v}`), ...args].join(' ');
  const name = `${workerCount} worker(s)${envLabel ? ` ${envLabel}` : ''}`;
  const workers: WorkerProcess[] = [];
  const settings: string[] = [];
  for (let w = 0; w < workerCount; w++) {
    const worker = await spawnWorker({
      temporalAddress: temporal.address,
      namespace: temporal.namespace,
      taskQueue,
      apiUrl: svc.url,
      apiKey: svc.apiKey,
      store: storeRoot,
      bundlePath: temporal.bundlePath,
      env,
      nodeArgs: [...args, ...probeNodeArgs()],
      onLine: (line) => {
        if (line.startsWith('webdata worker: concurrency')) settings.push(line.replace('webdata worker: concurrency', '').trim());
      },
    });
    closers.add(`worker ${w + 1} of ${workerCount}`, () => worker.stop());
    workers.push(worker);
  }
  const pids = workers.map((w) => w.pid);
  const start = (i: number, url: string, limit: number, tag: string) => startPipeline(temporal.client, {
    url,
    stages: { map: false, select: false, batch: false, interact: false },
    crawl: { limit },
    ...(stack.webhooks ? { webhookUrl: temporal.webhook.url } : {}),
  }, { taskQueue, workflowId: `many-${workerCount}w-${tag}-${i}-${stamp}` });

  // A few small runs first so every worker has loaded its bundle and opened its connections.
  log(`${name}: warm-up (not measured)`);
  const warm = await Promise.all(Array.from({ length: 4 * workerCount }, (_, i) => start(i, `${sites[0].url}/`, 5, 'warm')));
  await Promise.all(warm.map((h) => h.result()));

  log(`${name}: ${sites.length} pipelines at once`);
  const idleKb = pids.reduce((n, pid) => n + (readMemory(pid)?.rssKb ?? 0), 0);
  const samplers: ProcessSampler[] = pids.map((pid) => sampleProcess(pid, 200));
  const before = svc.snapshot();
  const cpu0 = cpuNow(pids);
  const t0 = Date.now();
  const handles = await Promise.all(sites.map((site, i) => start(i, `${site.url}/`, pages, 'run')));
  const runs = await Promise.all(handles.map(async (handle, i): Promise<Run & { status: string }> => {
    const result: PipelineResult = await handle.result();
    const latencyMs = Date.now() - t0;
    const crawl = result.stages.crawl;
    return {
      site: i,
      runId: handle.workflowId,
      jobId: crawl?.jobId ?? '',
      documents: crawl?.documents ?? 0,
      latencyMs,
      createdAt: Number.NaN,
      completedAt: Number.NaN,
      status: `${result.status}/${crawl?.status ?? '?'}`,
    };
  }));
  const wallMs = Date.now() - t0;
  const cpu = cpuSince(cpu0, pids);
  const { requests, byRoute } = diff(svc.snapshot(), before);
  const memory = samplers.map((s) => s.stop());
  const memorySplit = process.env.MEMORY_PROBE_FILE ? pids.map((pid) => probeSplit(process.env.MEMORY_PROBE_FILE as string, pid, t0)) : undefined;
  const bad = runs.filter((r) => r.status !== 'completed/completed');
  if (bad.length > 0) throw new Error(`${name}: ${bad.length} runs did not complete: ${bad.slice(0, 5).map((r) => `${r.runId} ${r.status}`).join('; ')}`);

  await jobTimes(api, runs);
  const store = new FilesystemStore({ root: storeRoot });
  closers.add(`store of ${name}`, () => store.close());
  await checkStores(store, sites, runs, pages, name);
  log(`${name}: ${summary(runs, wallMs)}`);

  let historyMaxEvents = 0;
  let historyEvents = 0;
  let historyBytes = 0;
  let historyLargest = { bytes: 0, event: '—' };
  const timings = emptyTimings();
  for (const [i, handle] of handles.entries()) {
    addTimings(timings, await handle.fetchHistory(), runs[i].completedAt, t0, runs[i].createdAt);
    const firstRunId = (handle as { firstExecutionRunId?: string }).firstExecutionRunId ?? '';
    const chain = await historyChain(temporal.client, handle.workflowId, firstRunId);
    for (const run of chain.runs) historyMaxEvents = Math.max(historyMaxEvents, run.events);
    historyEvents += chain.events;
    historyBytes += chain.bytes;
    if (chain.largest.bytes > historyLargest.bytes) historyLargest = chain.largest;
  }
  for (const w of workers) await w.stop();
  return {
    label: `pipelines, ${workerCount} worker${workerCount === 1 ? '' : 's'}${envLabel ? ` (${envLabel})` : ''}`,
    runs,
    startedAt: t0,
    wallMs,
    requests,
    byRoute,
    cpu,
    workerPeakKb: memory.map((m) => peakRss(m)),
    timings,
    historyMaxEvents,
    historyLargest,
    historyEvents,
    historyBytes,
    idleKb,
    memorySplit,
    settings: [...new Set(settings)].join(' | ') || '(the worker did not print its settings)',
  };
}

interface ProbeLine {
  t: number;
  pid: number;
  thread: string;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  heapLimit: number;
  external: number;
}

/**
 * The probe's sample with the process's highest RSS since `from`, split: each thread's V8 heap
 * (committed, of it in use) at its own nearest sample, and the rest (native: sdk-core, buffers,
 * code, allocator).
 */
function probeSplit(file: string, pid: number, from: number): string {
  if (!existsSync(file)) return 'no probe samples';
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ProbeLine).filter((l) => l.pid === pid && l.t >= from);
  if (lines.length === 0) return 'no probe samples';
  const peak = lines.reduce((a, b) => (b.rss > a.rss ? b : a));
  const threads = [...new Set(lines.map((l) => l.thread))].sort();
  const near = threads.map((thread) => lines.filter((l) => l.thread === thread).reduce((a, b) => (Math.abs(b.t - peak.t) < Math.abs(a.t - peak.t) ? b : a)));
  const heaps = near.map((l) => `${l.thread} heap ${bytes(l.heapTotal)} (${bytes(l.heapUsed)} in use, limit ${bytes(l.heapLimit)})`);
  const rest = peak.rss - near.reduce((n, l) => n + l.heapTotal, 0);
  return `RSS ${bytes(peak.rss)} at +${seconds(peak.t - from, 0)} s = ${heaps.join(' + ')} + outside the heaps ${bytes(rest)}`;
}

/** With MEMORY_PROBE_FILE set, the memory probe (lib/memory-probe.mjs: each thread's heap, the process's RSS, every MEMORY_PROBE_MS). */
function probeNodeArgs(): string[] {
  return process.env.MEMORY_PROBE_FILE ? ['--import', fileURLToPath(new URL('./lib/memory-probe.mjs', import.meta.url))] : [];
}

interface CpuMark {
  bench: number;
  temporal: number;
  workers: number[];
}

function cpuNow(workerPids: number[]): CpuMark {
  const usage = process.cpuUsage();
  return {
    bench: (usage.user + usage.system) / 1e6,
    temporal: childPids('temporal').reduce((n, pid) => n + readCpuSeconds(pid), 0),
    workers: workerPids.map(readCpuSeconds),
  };
}

function cpuSince(before: CpuMark, workerPids: number[]): CpuMark {
  const now = cpuNow(workerPids);
  return { bench: now.bench - before.bench, temporal: now.temporal - before.temporal, workers: now.workers.map((c, i) => c - before.workers[i]) };
}

/** The service's own created/completed times of every run's job. */
async function jobTimes(api: WebDataClient, runs: Run[]): Promise<void> {
  for (const run of runs) {
    const status = await api.getCrawlStatus(run.jobId, { limit: 1 });
    run.createdAt = typeof status.createdAt === 'string' ? Date.parse(status.createdAt) : Number.NaN;
    run.completedAt = typeof status.completedAt === 'string' ? Date.parse(status.completedAt) : Number.NaN;
  }
}

/** Each run's store holds exactly `pages` documents, each once, all from its own site. */
async function checkStores(store: FilesystemStore, sites: DemoSite[], runs: Run[], pages: number, what: string): Promise<void> {
  const problems: string[] = [];
  for (const run of runs) {
    const origin = sites[run.site].url;
    const urls: string[] = [];
    for await (const doc of store.readDocuments(run.runId)) urls.push(doc.url);
    const foreign = urls.filter((u) => new URL(u).origin !== origin);
    const unique = new Set(urls).size;
    if (urls.length !== pages || unique !== urls.length || foreign.length > 0 || run.documents !== pages) {
      problems.push(`${run.runId}: ${urls.length} stored (${unique} distinct, ${foreign.length} from another site), reported ${run.documents}, expected ${pages}`);
    }
  }
  if (problems.length > 0) {
    throw new Error(`${what}: ${problems.length} of ${runs.length} runs do not hold exactly their ${pages} pages:\n  ${problems.slice(0, 10).join('\n  ')}`);
  }
}

function summary(runs: Run[], wallMs: number): string {
  const stored = runs.reduce((n, r) => n + r.documents, 0);
  const lat = runs.map((r) => r.latencyMs);
  return `${stored} pages in ${seconds(wallMs, 1)} s (${fixed(stored / (wallMs / 1000), 0)} pages/s), run p50 ${seconds(percentile(lat, 50), 1)} s, p95 ${seconds(percentile(lat, 95), 1)} s`;
}

/** Waits inside Temporal, in ms, one list per kind, over all runs of a phase. */
interface Timings {
  /** The phase's start → the run's WorkflowExecutionStarted (the client's start call and the server). */
  startToStarted: number[];
  /** A run's first workflow task scheduled → started (on the normal queue: the run's start). */
  firstWorkflowTaskQueue: number[];
  /** The first workflow task started → the service created the job (sandbox and the start's request). */
  firstTaskToJob: number[];
  /** The first workflow task started → completed (it holds a workflow task slot meanwhile). */
  firstWorkflowTaskRun: number[];
  /** The first workflow task started → the job's start scheduled as a local activity (the workflow thread's part). */
  firstTaskToStart: number[];
  /** The job's start, a local activity: its run time as sdk-core recorded it (its request, and its wait for the worker's main thread). */
  startRun: number[];
  /** Every later workflow task scheduled → started: a worker had a slot and a poller for it. */
  workflowTaskQueue: number[];
  /** Activity task scheduled → started, per activity type. */
  activityQueue: Map<string, number[]>;
  /** Activity task started → completed, per activity type. */
  activityRun: Map<string, number[]>;
  /** The service's job completedAt → the first signal the run got after it (the webhook's wake-up). */
  completedToSignal: number[];
  /** The service's job completedAt → the collect activity scheduled (the run learnt it was done). */
  completedToCollect: number[];
}

function emptyTimings(): Timings {
  return { startToStarted: [], firstWorkflowTaskQueue: [], firstTaskToJob: [], firstWorkflowTaskRun: [], firstTaskToStart: [], startRun: [], workflowTaskQueue: [], activityQueue: new Map(), activityRun: new Map(), completedToSignal: [], completedToCollect: [] };
}

type History = Awaited<ReturnType<PipelineHandle['fetchHistory']>>;

function addTimings(t: Timings, history: History, jobCompletedAt: number, phaseStart: number, jobCreatedAt: number): void {
  const at = new Map<number, { time: number; type: string }>();
  const push = (m: Map<string, number[]>, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v]);
  let signalled = false;
  let collected = false;
  let firstTask = true;
  /** When the run's first workflow task started; NaN before it, and after it completed. */
  let firstTaskStarted = Number.NaN;
  for (const e of history.events ?? []) {
    const id = Number(e.eventId);
    const time = eventMs(e);
    if (e.workflowExecutionStartedEventAttributes) t.startToStarted.push(time - phaseStart);
    if (e.workflowTaskCompletedEventAttributes && Number.isFinite(firstTaskStarted)) {
      t.firstWorkflowTaskRun.push(time - firstTaskStarted);
      if (Number.isFinite(jobCreatedAt)) t.firstTaskToJob.push(jobCreatedAt - firstTaskStarted);
      // The job's start: a local activity of that task, recorded as a marker after it.
      const start = localActivities(history.events).find((call) => /^start/.test(call.type));
      if (start && Number.isFinite(start.scheduledAt) && Number.isFinite(start.completedAt)) {
        t.firstTaskToStart.push(start.scheduledAt - firstTaskStarted);
        t.startRun.push(start.completedAt - firstTaskStarted);
      }
      firstTaskStarted = Number.NaN;
    }
    if (e.workflowTaskScheduledEventAttributes) at.set(id, { time, type: 'wft' });
    if (e.workflowTaskStartedEventAttributes) {
      const from = at.get(Number(e.workflowTaskStartedEventAttributes.scheduledEventId));
      if (from) (firstTask ? t.firstWorkflowTaskQueue : t.workflowTaskQueue).push(time - from.time);
      if (firstTask) firstTaskStarted = time;
      firstTask = false;
    }
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const type = scheduled.activityType?.name ?? '?';
      at.set(id, { time, type });
      if (!collected && /^collect/.test(type) && Number.isFinite(jobCompletedAt)) {
        collected = true;
        t.completedToCollect.push(time - jobCompletedAt);
      }
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const from = at.get(Number(started.scheduledEventId));
      if (from) {
        push(t.activityQueue, from.type, time - from.time);
        at.set(id, { time, type: from.type });
      }
    }
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed) {
      const from = at.get(Number(completed.startedEventId));
      if (from) push(t.activityRun, from.type, time - from.time);
    }
    if (e.workflowExecutionSignaledEventAttributes && !signalled && Number.isFinite(jobCompletedAt) && time >= jobCompletedAt - 1000) {
      signalled = true;
      t.completedToSignal.push(time - jobCompletedAt);
    }
  }
}

function percentile(values: number[], p: number): number {
  const xs = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (xs.length === 0) return Number.NaN;
  return xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
}

function report(phases: Phase[], count: number, pages: number, webhooks: boolean, title?: string): void {
  const rate = (p: Phase) => p.runs.reduce((n, r) => n + r.documents, 0) / (p.wallMs / 1000);
  const hasCeiling = phases[0] !== undefined && phases[0].timings === undefined;
  const ceilingRate = hasCeiling ? rate(phases[0]) : Number.NaN;
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  printTable(
    `${title ? `${title}: ` : ''}${count} crawls of ${int(pages)} pages at once, each on its own site (${webhooks ? 'pipelines with webhooks + polling' : 'pipelines polling only'})`,
    ['client', 'pages stored', 'wall s', 'pages/s', '× ceiling', 'run p50 s', 'run p95 s', 'requests', 'client CPU s', 'client peak RSS', 'events max/run', 'largest payload'],
    phases.map((p) => [
      p.label,
      int(sum(p.runs.map((r) => r.documents))),
      seconds(p.wallMs, 1),
      fixed(rate(p), 0),
      hasCeiling ? ratio(rate(p), ceilingRate) : '—',
      seconds(percentile(p.runs.map((r) => r.latencyMs), 50), 1),
      seconds(percentile(p.runs.map((r) => r.latencyMs), 95), 1),
      int(p.requests),
      p.cpu.workers.length ? p.cpu.workers.map((c) => fixed(c, 1)).join(' + ') : '—',
      p.workerPeakKb.length ? p.workerPeakKb.map((kb) => bytes(kb * 1024)).join(', ') : '—',
      p.historyMaxEvents === undefined ? '—' : int(p.historyMaxEvents),
      p.historyLargest ? bytes(p.historyLargest.bytes) : '—',
    ]),
    [
      '',
      'pages/s = pages stored by all runs / wall (first start → last run done). Run latency: the phase\'s start → that run',
      'had every page stored. Client: the hand loops\' process, or each worker process (CPU during the phase, peak RSS).',
      'events max/run: the largest run of any continue-as-new chain; largest payload: in any event of any run.',
    ],
  );

  printTable(
    'Where the wall time goes (seconds from the phase start; service times are the service\'s own)',
    ['client', 'last job created', 'first job done', 'last job done', 'last job done → last run done', 'bench process CPU s', 'Temporal server CPU s', 'client CPU s (all)'],
    phases.map((p) => {
      const created = p.runs.map((r) => r.createdAt - p.startedAt);
      const done = p.runs.map((r) => r.completedAt - p.startedAt);
      return [
        p.label,
        seconds(Math.max(...created)),
        seconds(Math.min(...done)),
        seconds(Math.max(...done)),
        seconds(p.wallMs - Math.max(...done)),
        fixed(p.cpu.bench, 1),
        fixed(p.cpu.temporal, 1),
        p.cpu.workers.length ? fixed(sum(p.cpu.workers), 1) : '—',
      ];
    }),
    [
      '',
      'The bench process hosts the service, the demo sites and the webhook receiver; the clients run in processes of their own.',
    ],
  );

  const timed = phases.filter((p) => p.timings);
  if (timed.length > 0) {
    const rows: string[][] = [];
    const row = (label: string, p: Phase, xs: number[]) => xs.length > 0 && rows.push([label, p.label, int(xs.length), seconds(percentile(xs, 50)), seconds(percentile(xs, 95)), seconds(Math.max(...xs))]);
    for (const p of timed) {
      const t = p.timings as Timings;
      row('phase start → run started (client, server)', p, t.startToStarted);
      row('first workflow task: scheduled → started', p, t.firstWorkflowTaskQueue);
      row('first workflow task: started → job\'s start scheduled', p, t.firstTaskToStart);
      row('job\'s start (local activity): run time', p, t.startRun);
      row('first workflow task: started → job created', p, t.firstTaskToJob);
      row('first workflow task: started → completed', p, t.firstWorkflowTaskRun);
      row('later workflow tasks: scheduled → started', p, t.workflowTaskQueue);
      for (const [type, xs] of [...t.activityQueue].sort()) row(`${type}: scheduled → started`, p, xs);
      for (const [type, xs] of [...t.activityRun].sort()) row(`${type}: started → completed`, p, xs);
      row('job completed (service) → first signal', p, t.completedToSignal);
      row('job completed (service) → collect scheduled', p, t.completedToCollect);
    }
    printTable('Inside Temporal (from the histories; seconds)', ['what', 'client', 'count', 'p50', 'p95', 'max'], rows);
  }

  const routes = [...new Set(phases.flatMap((p) => Object.keys(p.byRoute)))].sort();
  printTable(
    'Requests per run by route (the service\'s count during the phase / runs)',
    ['client', ...routes],
    phases.map((p) => [p.label, ...routes.map((k) => fixed((p.byRoute[k] ?? 0) / p.runs.length, 1))]),
  );

  const piped = phases.filter((p) => p.timings);
  if (piped.length > 0) {
    const runsOf = (p: Phase) => p.runs.length;
    printTable(
      'Cost per run (from the histories and the service\'s count; independent of the machine\'s load)',
      ['client', 'activities', 'workflow tasks', 'history events', 'history bytes', 'status requests', 'worker CPU ms', 'Temporal CPU ms'],
      piped.map((p) => {
        const t = p.timings as Timings;
        const activities = sum([...t.activityQueue.values()].map((xs) => xs.length));
        const tasks = t.firstWorkflowTaskQueue.length + t.workflowTaskQueue.length;
        const status = sum(Object.entries(p.byRoute).filter(([k]) => /^GET \/v2\/(crawl|batch\/scrape)\/:id$/.test(k)).map(([, v]) => v));
        return [
          p.label,
          fixed(activities / runsOf(p), 1),
          fixed(tasks / runsOf(p), 1),
          fixed((p.historyEvents ?? 0) / runsOf(p), 1),
          bytes((p.historyBytes ?? 0) / runsOf(p)),
          fixed(status / runsOf(p), 1),
          fixed((sum(p.cpu.workers) * 1000) / runsOf(p), 0),
          fixed((p.cpu.temporal * 1000) / runsOf(p), 0),
        ];
      }),
    );
    const GiB = 1024 * 1024;
    const goal = (met: boolean) => (met ? 'met' : 'missed');
    const rows: string[][] = [];
    for (const p of piped) {
      const stored = sum(p.runs.map((r) => r.documents));
      const cpuMs = ((sum(p.cpu.workers) + p.cpu.temporal) * 1000) / stored;
      const created = Math.max(...p.runs.map((r) => r.createdAt - p.startedAt));
      const peakKb = sum(p.workerPeakKb);
      const perRunMiB = ((peakKb - (p.idleKb ?? 0)) / 1024) / p.runs.length;
      rows.push([p.label, 'worker + Temporal CPU per page', '≤ 1.0 ms', `${fixed(cpuMs, 2)} ms`, goal(cpuMs <= 1.0)]);
      if (hasCeiling) rows.push([p.label, 'pages/s × the ceiling', '≥ 0.80x', ratio(rate(p), ceilingRate), goal(rate(p) / ceilingRate >= 0.8)]);
      rows.push([p.label, `${p.runs.length} runs started (last job created)`, '≤ 3 s', `${seconds(created)} s`, goal(created <= 3000)]);
      if (hasCeiling) {
        // Against the hand loops of this run: their client does the same reads and writes without Temporal.
        const hand = phases[0] as Phase;
        const handCpuMs = (sum(hand.cpu.workers) * 1000) / sum(hand.runs.map((r) => r.documents));
        const handCreated = Math.max(...hand.runs.map((r) => r.createdAt - hand.startedAt));
        rows.push([p.label, 'CPU per page ÷ the hand loops\' client CPU per page', '≤ 1.5x', `${ratio(cpuMs, handCpuMs)} (${fixed(handCpuMs, 2)} ms)`, goal(cpuMs / handCpuMs <= 1.5)]);
        rows.push([p.label, 'last job created ÷ the hand loops\'', '≤ 1.5x', `${ratio(created, handCreated)} (${seconds(handCreated)} s)`, goal(created / handCreated <= 1.5)]);
      }
      rows.push([p.label, 'each run stores its pages exactly once', 'all runs', `${p.runs.length} of ${p.runs.length}`, 'met']);
      rows.push([p.label, 'worker peak RSS', '≤ 1 GiB', bytes(peakKb * 1024), goal(peakKb <= GiB)]);
      rows.push([p.label, 'worker memory per run over idle', '(was ~3.8 MiB)', `${fixed(perRunMiB, 2)} MiB`, '—']);
    }
    printTable('Goals: target next to measured', ['client', 'goal', 'target', 'measured', ''], rows, [
      '',
      'CPU per page: worker and Temporal dev server CPU seconds during the phase / pages stored. Memory per run:',
      '(peak RSS − RSS after the warm-up) / runs. Stored once: the phase fails when a run\'s store does not hold exactly its pages.',
    ]);
  }

  const probed = phases.filter((p) => p.memorySplit);
  if (probed.length > 0) {
    console.log('\nWorker memory at its highest probe sample (MEMORY_PROBE_FILE; heaps: committed, of it in use):');
    for (const p of probed) for (const line of p.memorySplit ?? []) console.log(`- ${p.label}: ${line}`);
  }

  const withSettings = phases.filter((p) => p.settings);
  if (withSettings.length > 0) {
    console.log('\nWorker settings (as each worker printed them):');
    for (const p of withSettings) console.log(`- ${p.label}: ${p.settings}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // --pipelines=0: the wide row alone.
  const count = stringOption('pipelines', 'MANY_PIPELINES') === '0' ? 0 : intOption('pipelines', 'MANY_PIPELINES', 100);
  const pages = intOption('pipeline-pages', 'PAGES', 100);
  const workers = listOption('workers', 'MANY_PIPELINES_WORKERS', [1, 2]);
  const webhooks = process.env.MANY_PIPELINES_WEBHOOKS !== '0';
  const variants = parseVariants(process.env.MANY_PIPELINES_VARIANTS);
  // Off by default (npm run bench): 715 s on a 2-core machine at load 17; run it on its own.
  const wide = parseWide(stringOption('wide', 'MANY_PIPELINES_WIDE') ?? '0');
  const wideEnv = process.env.MANY_PIPELINES_WIDE_ENV ? parseVariants(process.env.MANY_PIPELINES_WIDE_ENV)[0] : WIDE_SETTINGS;
  await runBench('many-pipelines', timeoutMs(1500), async (closers, log) => {
    if (count > 0) await manyPipelines(closers, log, count, pages, workers, webhooks, variants);
    if (wide) {
      // A stack of its own (service, sites, Temporal): the first one's leftovers do not count here.
      await closers.closeAll();
      await manyPipelines(closers, log, wide.pipelines, wide.pages, [1], webhooks, [wideEnv], { ceiling: false, title: 'Wide row', workerNodeArgs: WIDE_NODE_ARGS });
    }
  });
}

/** `--wide=1000x10`: pipelines × pages of the wide row; `0` or `off`: none. */
export function parseWide(raw: string): { pipelines: number; pages: number } | undefined {
  if (raw === '0' || raw === 'off') return undefined;
  const m = /^(\d+)x(\d+)$/.exec(raw.trim());
  if (!m) throw new Error(`--wide: "${raw}" is not PIPELINESxPAGES (e.g. 1000x10) or 0`);
  return { pipelines: Number(m[1]), pages: Number(m[2]) };
}
