// The fleet at scale, on a production-shaped Temporal (the Temporal server on PostgreSQL,
// scripts/temporal-server.sh): three worker processes on one task queue, the webhook receiver as
// its own process, the local service with a rate limit per team, the PostgreSQL document store
// shared by all workers. Runs of mixed sizes (some with interact, some repaired through support
// ask) start at once and through a schedule, while a random worker is SIGKILLed and restarted
// every 20 s, the Temporal server restarts once and the store's PostgreSQL restarts once. Then
// everything is checked from the service's own records and the store, and the receiver takes a
// load of signed deliveries. `npm run test:scale` (SCALE_PROFILE=ci: the short profile).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { startPipeline, type PipelineHandle } from '../../src/client/pipeline.js';
import { deleteSchedule, schedulePipeline } from '../../src/client/schedules.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { createStore, type DocumentStore } from '../../packages/storage/src/index.js';
import { startDemoSite, type DemoSite } from '../../packages/service/src/demo-site/index.js';
import { jobStoreOf } from '../../packages/service/src/jobs/index.js';
import type { Job } from '../../packages/service/src/jobs/types.js';
import { quietTemporalLogs } from '../helpers/temporal.js';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server.js';
import { prebuiltWorkflowBundle, seededRandom, sleep, startRecordingService, WEBHOOK_SECRET, type RecordingService } from '../chaos/harness.js';
import {
  peakPerWindow, recordRateLimiter, scaleProfile, scaleTeam, startFleet, startReceiverProcess, startStorePostgres, stopOnExit,
  SCALE_WORKER_KEY, type Fleet, type ReceiverProcess, type Shape, type StorePostgres,
} from './fleet.js';
import { loadReceiver, type ReceiverLoadResult } from './receiver-load.js';
import type { ReceiverRecord } from './receiver-process.js';
import { allowPrivateHosts } from '../helpers/private-hosts.js';

const profile = scaleProfile();
// SCALE_GOVERNOR=1: every run shares the team through the fleet governor (input.governor,
// docs/tenants.md), to compare the 429s with and without it on the same profile.
const governed = process.env.SCALE_GOVERNOR === '1';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TASK_QUEUE = 'scale';
const WORKERS = 3;
const TEAM = 'local';

let dir: string;
let server: TemporalServer;
let connection: Connection;
let client: Client;
let storePg: StorePostgres;
let storeUrl: string;
let store: DocumentStore;
let service: RecordingService;
const sites = new Map<number, DemoSite>();
let receiver: ReceiverProcess;
let fleet: Fleet;
const limiter = recordRateLimiter();
const setupMs: Record<string, number> = {};

const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
  const t0 = Date.now();
  try {
    return await fn();
  } finally {
    setupMs[name] = Date.now() - t0;
  }
};

before(async () => {
  quietTemporalLogs();
  dir = mkdtempSync(join(tmpdir(), 'webdata-scale-'));
  // The servers first and together: each takes seconds to come up on a busy machine.
  // Each is kept as it comes up, so after() stops it even when another failed.
  const started = await Promise.allSettled([
    timed('temporal server', () => startTemporalServer()).then((s) => { server = s; }),
    timed('store postgres', () => startStorePostgres()).then((p) => { storePg = p; }),
    startRecordingService({ sitePages: 10, teams: [scaleTeam(profile)] }).then((s) => { service = s; }),
  ]);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  for (const { shape } of profile.runs) {
    if (!sites.has(shape.sitePages)) sites.set(shape.sitePages, await startDemoSite({ pages: shape.sitePages, port: 0 }));
  }
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, namespace: server.namespace });
  storeUrl = `${storePg.url}?schema=scale_${Date.now()}`;
  store = createStore(storeUrl);
  // Creates the schema once, before three workers would race to.
  await store.count('warm-up');
  const bundlePath = await timed('workflow bundle', () => prebuiltWorkflowBundle(dir));
  receiver = await startReceiverProcess({ temporalAddress: server.address, secret: WEBHOOK_SECRET, logFile: join(dir, 'receiver.jsonl') });
  // Runs crawl the sites and name the receiver, all on 127.0.0.1: allowed by host:port, here and
  // in the workers spawned below (the recording service's site is allowed by the harness).
  allowPrivateHosts(...[...sites.values()].map((s) => s.url), receiver.url);
  fleet = await timed('workers', () => startFleet(WORKERS, {
    temporalAddress: server.address, serviceUrl: service.url, apiKey: SCALE_WORKER_KEY, store: storeUrl,
    taskQueue: TASK_QUEUE, bundlePath, collectPageSize: 100,
  }));
  stopOnExit(() => [receiver?.child, ...(fleet?.workers.map((w) => w.child) ?? [])]);
});

after(async () => {
  limiter.restore();
  await fleet?.stop();
  await receiver?.stop();
  await connection?.close().catch(() => undefined);
  await store?.close();
  for (const site of sites.values()) await site.close();
  await service?.close();
  await storePg?.stop();
  await server?.stop();
  if (dir && process.env.SCALE_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
});

// ---- runs -------------------------------------------------------------------------------------

const INTERACT_CODE = "await page.click('#load-more'); await page.waitForFunction(() => document.querySelectorAll('#catalog-items li').length > 10); await page.$$eval('#catalog-items li', (li) => li.length)";

function inputFor(shape: Shape): PipelineInput {
  const site = sites.get(shape.sitePages);
  assert.ok(site);
  return {
    url: `${site.url}/`,
    select: { include: ['^/blog/post-', '^/docs/', '^/shop/item-', ...(shape.interact ? ['^/shop/catalog$'] : [])] },
    // As in the chaos runs: query variants are deduplicated and the crawl keeps to the selection's
    // patterns, so crawl ∪ batch is the selection whatever order a limited crawl takes.
    crawl: {
      limit: Math.max(3, Math.ceil(shape.sitePages * 0.6)), ignoreQueryParameters: true, scrapeOptions: { maxAge: 0 },
      // Matches no page, not even the start URL: the crawl fails and support ask repairs it.
      ...(shape.repair ? { includePaths: ['^/documentation'] } : {}),
    },
    map: { ignoreCache: true },
    batch: { scrapeOptions: { maxAge: 0 } },
    stages: { interact: shape.interact === true },
    ...(shape.interact ? { interact: { match: '/shop/catalog', code: INTERACT_CODE, maxPages: 1 } } : {}),
    webhookUrl: receiver.url,
    polling: { minIntervalMs: 1_000, maxIntervalMs: profile.safetyPollMs },
    ...(governed ? { governor: {} } : {}),
  };
}

interface Run {
  id: string;
  shape: Shape;
  via: 'direct' | 'schedule';
  handle: PipelineHandle;
  result?: PipelineResult;
  error?: unknown;
  /** When this process saw the run end. */
  endedAt?: number;
}

interface Checked {
  run: Run;
  result: PipelineResult;
  urls: string[];
  serviceUrls: string[];
  runMs: number;
}

function handleOf(id: string): PipelineHandle {
  return client.workflow.getHandle<typeof webDataPipeline>(id);
}

function watch(run: Run, done: Set<string>): void {
  run.handle.result().then(
    (r) => { run.result = r; run.endedAt = Date.now(); done.add(run.id); },
    (e: unknown) => { run.error = e; run.endedAt = Date.now(); done.add(run.id); },
  );
}

/** The run's selection (the select stage's list): URLs the pipeline must store, by crawl or batch. */
async function selectedUrls(result: PipelineResult): Promise<string[]> {
  const list = result.stages.select?.ref?.list;
  if (!list) return [];
  const urls: string[] = [];
  for await (const link of store.readLinks(result.runId, list)) urls.push(link.url);
  return urls;
}

async function storedUrls(runId: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const doc of store.readDocuments(runId)) if (doc.kind === 'crawl' || doc.kind === 'batch') urls.push(doc.url);
  return urls;
}

function jobs(): Job[] {
  const js = jobStoreOf(service.app.context);
  assert.ok(js, 'the service has no job store');
  return (js as unknown as { all(): Job[] }).all().filter((j) => j.team.id === TEAM);
}

/**
 * For a ledger that disagrees: the jobs whose charges are not one per document, or whose
 * documents repeat a URL, and charges of no job of the storm (the diagnosis a failure needs).
 */
function oddJobs(ledger: Array<{ credits: number; reason: string; jobId?: string }>, stormJobs: Job[]): string {
  // A job's pages are charged with the job's kind as the reason (crawl, batch_scrape).
  const kinds = new Set<string>(stormJobs.map((j) => j.kind));
  const byJob = new Map<string, number>();
  for (const e of ledger) if (kinds.has(e.reason) && e.jobId) byJob.set(e.jobId, (byJob.get(e.jobId) ?? 0) + e.credits);
  const odd: string[] = [];
  for (const job of stormJobs) {
    const urls = job.documents.map((d) => String((d.doc.metadata as Record<string, unknown>).sourceURL ?? ''));
    const charged = byJob.get(job.id) ?? 0;
    byJob.delete(job.id);
    if (charged !== job.documents.length || new Set(urls).size !== urls.length) {
      odd.push(`${job.kind} ${job.id} ${job.status}: charged ${charged}, ${job.documents.length} documents (${new Set(urls).size} URLs), creditsUsed ${job.creditsUsed}`);
    }
  }
  if (byJob.size) odd.push(`charges of no storm job: ${[...byJob].map(([id, c]) => `${id} ${c}`).join(', ')}`);
  return odd.length ? `odd jobs: ${odd.join('; ')}` : 'every job charged once per document';
}

/**
 * The batch stage's jobs: its one job, or every chunk's when the governor splits a batch larger
 * than its chunk (stages/batch-chunks.ts), where the stage report names only the last.
 */
function batchJobIds(result: PipelineResult): string[] {
  const chunks = Object.entries(result.jobs).filter(([key]) => key.startsWith('batch#chunk')).map(([, id]) => id);
  if (chunks.length > 0) return chunks;
  return result.stages.batch?.jobId ? [result.stages.batch.jobId] : [];
}

/** The page URLs the service returned for a job (its documents, as the collector reads them). */
function returnedUrls(jobId: string | undefined): string[] {
  if (!jobId) return [];
  const job = jobStoreOf(service.app.context)?.get(jobId);
  assert.ok(job, `the service has no job ${jobId}`);
  return job.documents.map((d) => {
    const m = d.doc.metadata as Record<string, unknown>;
    return String(m.sourceURL ?? m.url);
  });
}

async function check(run: Run): Promise<Checked> {
  if (run.error !== undefined) throw new Error(`run ${run.id} (${run.shape.name}) did not complete: ${String(run.error)}`);
  const result = run.result;
  assert.ok(result);
  const urls = await storedUrls(run.id);
  const serviceUrls = [...returnedUrls(result.stages.crawl?.jobId), ...batchJobIds(result).flatMap(returnedUrls)];
  const desc = await run.handle.describe();
  const runMs = (desc.closeTime?.getTime() ?? Date.now()) - desc.startTime.getTime();
  return { run, result, urls, serviceUrls, runMs };
}

/** Which URLs differ, and what the service recorded of them (page errors, robots), with the stage reports. */
function urlDiff(c: Checked, ref: Checked): string {
  const path = (u: string) => { try { return new URL(u).pathname; } catch { return u; } };
  const mine = new Set(c.urls.map(path));
  const theirs = new Set(ref.urls.map(path));
  const missing = [...theirs].filter((p) => !mine.has(p));
  const extra = [...mine].filter((p) => !theirs.has(p));
  const recorded = (jobId: string | undefined) => {
    const job = jobId ? jobStoreOf(service.app.context)?.get(jobId) : undefined;
    if (!job) return [`job ${jobId ?? '(none)'}: not in the service's store`];
    const touches = (u: string) => missing.includes(path(u)) || extra.includes(path(u));
    return [
      // Every page error of the job: a failure may name a URL other than the one missing.
      ...job.errors.map((e) => `${job.kind} ${job.id} error ${path(e.url)}: ${e.code ?? ''} ${e.error}`),
      ...job.robotsBlocked.filter(touches).map((u) => `${job.kind} ${job.id} robots-blocked ${path(u)}`),
    ];
  };
  const stage = (name: 'map' | 'select' | 'crawl' | 'batch') => `${name} ${JSON.stringify(c.result.stages[name])}`;
  return [
    `missing ${JSON.stringify(missing)}, extra ${JSON.stringify(extra)}`,
    ...recorded(c.result.stages.crawl?.jobId), ...batchJobIds(c.result).flatMap(recorded),
    stage('map'), stage('select'), stage('crawl'), stage('batch'),
  ].join('; ');
}

const sorted = (xs: string[]) => [...xs].sort();
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Runs one run of each shape on the quiet fleet: the reference every run of the shape must equal. */
async function cleanRuns(shapes: Shape[]): Promise<Map<string, Checked>> {
  const done = new Set<string>();
  const runs: Run[] = [];
  for (const shape of shapes) {
    const id = `scale-clean-${shape.name}-${Date.now()}`;
    const run: Run = { id, shape, via: 'direct', handle: await startPipeline(client, inputFor(shape), { taskQueue: TASK_QUEUE, workflowId: id }) };
    watch(run, done);
    runs.push(run);
  }
  const deadline = Date.now() + 20 * 60_000;
  while (done.size < runs.length) {
    if (Date.now() > deadline) throw new Error('the clean runs did not end within 20 minutes');
    await sleep(500);
  }
  const out = new Map<string, Checked>();
  for (const run of runs) {
    const c = await check(run);
    assert.equal(c.result.status, 'completed', `clean ${run.shape.name}: ${JSON.stringify(c.result.stages)}`);
    assert.equal(new Set(c.urls).size, c.urls.length, `clean ${run.shape.name}: a page stored twice`);
    assert.deepEqual(sorted(c.urls), sorted([...new Set(c.serviceUrls)]), `clean ${run.shape.name}: stored URLs differ from what the service returned`);
    if (run.shape.repair) assert.equal(c.result.stages.crawl?.status, 'repaired', JSON.stringify(c.result.stages.crawl));
    if (run.shape.interact) assert.equal(c.result.stages.interact?.status, 'completed', JSON.stringify(c.result.stages.interact));
    out.set(run.shape.name, c);
  }
  return out;
}

// ---- the report --------------------------------------------------------------------------------

interface Report {
  profile: string;
  measuredAt: string;
  table: Record<string, string | number>;
  receiver?: Record<string, string | number>;
  details: Record<string, unknown>;
}

function writeReport(report: Report): void {
  const path = join(ROOT, '.data', 'scale', `report-${profile.name}.json`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

// ---- the test ------------------------------------------------------------------------------------

test(`fleet at scale (${profile.name}): every run completes with the clean run's pages and credits through kills and restarts`, { timeout: profile.runsDeadlineMs + 40 * 60_000 }, async (t) => {
  const shapes = [...new Map(profile.runs.map(({ shape }) => [shape.name, shape])).values()];
  const ledgerBeforeClean = service.ledger.length;
  const cleanStart = Date.now();
  const clean = await cleanRuns(shapes);
  // The workflow's own credit accounting agrees with the service's ledger on clean runs...
  const cleanCharged = service.ledger.slice(ledgerBeforeClean).reduce((n, e) => n + e.credits, 0);
  const cleanSpent = [...clean.values()].reduce((n, c) => n + c.result.credits.spent, 0);
  assert.equal(cleanCharged, cleanSpent, 'clean runs: the ledger and the workflows disagree on credits');
  // ...and each clean run started one crawl job (two with a repair) and one batch job (one per chunk when governed).
  const crawlJobsPerRun = (s: Shape) => (s.repair ? 2 : 1);
  const batchJobsPerRun = (s: Shape) => { const c = clean.get(s.name); return c ? batchJobIds(c.result).length : 0; };
  const cleanJobs = jobs().filter((j) => j.createdAt >= cleanStart);
  assert.equal(cleanJobs.filter((j) => j.kind === 'crawl').length, shapes.reduce((n, s) => n + crawlJobsPerRun(s), 0));
  assert.equal(cleanJobs.filter((j) => j.kind === 'batch_scrape').length, shapes.reduce((n, s) => n + batchJobsPerRun(s), 0));
  t.diagnostic(`clean runs: ${[...clean.values()].map((c) => `${c.run.shape.name} ${c.urls.length} pages ${c.result.credits.spent} credits ${sec(c.runMs)}`).join('; ')}`);

  // ---- the storm ----
  const rand = seededRandom(profile.seed);
  const plan = profile.runs.flatMap(({ shape, count }) => Array.from({ length: count }, () => shape));
  const total = plan.length;
  // Which runs start through the schedule: spread over the plan, the same ones for a seed.
  const viaSchedule = new Set<number>();
  while (viaSchedule.size < profile.scheduled) viaSchedule.add(Math.floor(rand() * total));
  service.app.faults.set(TEAM, { webhookDropRate: 0.2 });
  const ledgerFrom = service.ledger.length;
  const requestsFrom = service.requests.length;
  const stormStart = Date.now();
  const done = new Set<string>();
  const runs: Run[] = [];
  const stamp = Date.now();
  // The schedules' runs are triggered first, all at once, and found afterwards by the search
  // attribute the scheduler sets: waiting for each trigger's run in turn (triggerSchedule) took
  // over 3 minutes each while 180 other runs were starting on this machine. One schedule per
  // run: a scheduled run's workflow id ends with its start time in whole seconds, so two
  // triggers of one schedule that the scheduler takes in the same second name one workflow and
  // the second is dropped, however far apart they were sent.
  const schedules = [...viaSchedule].map((i) => ({ scheduleId: `scale-schedule-${plan[i].name}-${i}-${stamp}`, shape: plan[i] }));
  await Promise.all(schedules.map(async ({ scheduleId, shape }) => {
    await schedulePipeline(client, inputFor(shape), { scheduleId, every: '1h', paused: true, overlap: 'allow_all', taskQueue: TASK_QUEUE, trackChanges: false });
    await client.schedule.getHandle(scheduleId).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  }));
  await Promise.all(plan.map(async (shape, i) => {
    if (viaSchedule.has(i)) return;
    const id = `scale-${shape.name}-${i}-${stamp}`;
    const run: Run = { id, shape, via: 'direct', handle: await startPipeline(client, inputFor(shape), { taskQueue: TASK_QUEUE, workflowId: id }) };
    watch(run, done);
    runs.push(run);
  }));
  const scheduledDeadline = Date.now() + 15 * 60_000;
  for (const { scheduleId, shape } of schedules) {
    for (;;) {
      const ids: string[] = [];
      for await (const wf of client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` })) ids.push(wf.workflowId);
      if (ids.length >= 1) {
        assert.equal(ids.length, 1, `schedule ${scheduleId} started ${ids.length} runs for 1 trigger`);
        const run: Run = { id: ids[0], shape, via: 'schedule', handle: handleOf(ids[0]) };
        watch(run, done);
        runs.push(run);
        break;
      }
      if (Date.now() > scheduledDeadline) throw new Error(`schedule ${scheduleId}: its triggered run did not start within 15 minutes`);
      await sleep(1000);
    }
  }
  const startedMs = Date.now() - stormStart;
  t.diagnostic(`${total} runs started in ${sec(startedMs)} (${profile.scheduled} through schedules)`);

  const events: string[] = [];
  const kills: Array<{ at: number; slot: number; readyMs: number; open: number }> = [];
  let temporalRestart: { at: number; stopMs: number; startMs: number; open: number } | undefined;
  let storeRestart: { at: number; downMs: number; open: number } | undefined;
  let nextKillAt = stormStart + profile.killEveryMs;
  let nextProgressAt = stormStart + 30_000;
  const deadline = stormStart + profile.runsDeadlineMs;
  const open = () => total - done.size;
  // Every disruption is triggered by time or by how many runs completed, never by a stage being
  // reached, and each is counted when done: a disruption that finds few runs left still counts.
  while (done.size < total || !temporalRestart || !storeRestart || kills.length === 0) {
    if (Date.now() > deadline) throw new Error(`${open()} of ${total} runs still open after ${sec(profile.runsDeadlineMs)}`);
    const completed = done.size / total;
    if (!temporalRestart && (completed >= profile.restartTemporalAt || done.size === total)) {
      const at = Date.now();
      const openAt = open();
      const r = await server.restartServer();
      temporalRestart = { at, ...r, open: openAt };
      events.push(`temporal restart at +${sec(at - stormStart)} with ${openAt} runs open: stopped ${sec(r.stopMs)}, serving ${sec(r.startMs)} later`);
    } else if (temporalRestart && !storeRestart && (completed >= profile.restartStoreAt || done.size === total)) {
      const at = Date.now();
      const openAt = open();
      const r = await storePg.restart();
      storeRestart = { at, ...r, open: openAt };
      events.push(`store restart at +${sec(at - stormStart)} with ${openAt} runs open: down ${sec(r.downMs)}`);
    } else if (kills.length < profile.maxKills && (Date.now() >= nextKillAt || (done.size === total && kills.length === 0))) {
      const slot = Math.floor(rand() * WORKERS);
      const at = Date.now();
      const openAt = open();
      const { readyMs } = await fleet.killAndRestart(slot);
      kills.push({ at, slot, readyMs, open: openAt });
      nextKillAt = Date.now() + profile.killEveryMs;
    } else if (done.size === total && kills.length > 0 && temporalRestart && storeRestart) {
      break;
    }
    // A line now and then, so a slow run shows where it is (node:test prints diagnostics at the end).
    if (Date.now() >= nextProgressAt) {
      nextProgressAt = Date.now() + 30_000;
      console.error(`scale: +${sec(Date.now() - stormStart)}: ${done.size} of ${total} runs ended, ${kills.length} kills, Temporal restarted ${temporalRestart ? 'yes' : 'no'}, store restarted ${storeRestart ? 'yes' : 'no'}`);
    }
    await sleep(250);
  }
  const stormEnd = Math.max(...runs.map((r) => r.endedAt ?? stormStart));
  service.app.faults.set(TEAM, undefined);
  for (const e of events) t.diagnostic(e);
  t.diagnostic(`kills: ${kills.length} (${kills.map((k) => `worker ${k.slot} at +${sec(k.at - stormStart)}, ${k.open} open, back in ${sec(k.readyMs)}`).join('; ')})`);

  // ---- checks: every run ----
  const checked: Checked[] = [];
  for (const run of runs) checked.push(await check(run));
  const otherSelections: string[] = [];
  for (const c of checked) {
    const ref = clean.get(c.run.shape.name);
    assert.ok(ref);
    const what = `${c.run.id} (${c.run.via})`;
    assert.equal(c.result.status, 'completed', `${what}: ${JSON.stringify(c.result.stages)}`);
    for (const stage of ['map', 'select', 'crawl', 'batch', 'interact'] as const) {
      assert.equal(c.result.stages[stage]?.status, ref.result.stages[stage]?.status, `${what}: ${stage} ${JSON.stringify(c.result.stages[stage])}`);
    }
    assert.equal(new Set(c.urls).size, c.urls.length, `${what}: a page was stored twice`);
    assert.deepEqual(sorted(c.urls), sorted([...new Set(c.serviceUrls)]), `${what}: the stored URLs are not what the service returned`);
    // A crawl with a limit stops after that many pages, and which pages it reached first depends
    // on timing: besides the selection (which the batch completes) it may store pages the map
    // did not list (the demo site's /docs/broken-page is linked from /docs, not in its
    // sitemap). And under this load a run's map can list other URLs than its clean run's did
    // (seen: 19 against 20 on the 10-page site), so the selections can differ (counted below).
    // For every URL both runs selected, and the start page, the run must equal the clean run;
    // beyond its selection it may only store pages of the selection's patterns (the crawl keeps
    // to them) or pages its clean run stored; each page costs the same credit.
    const mySelection = new Set([...(await selectedUrls(c.result)), c.result.url]);
    const refSelection = new Set([...(await selectedUrls(ref.result)), ref.result.url]);
    if (!isDeepStrictEqual(sorted([...mySelection]), sorted([...refSelection]))) otherSelections.push(c.run.id);
    const inBoth = (urls: string[]) => sorted(urls.filter((u) => mySelection.has(u) && refSelection.has(u)));
    const [mine, theirs] = [inBoth(c.urls), inBoth(ref.urls)];
    // The diagnosis reads the service's records: built only for a run that differs.
    assert.deepEqual(mine, theirs, `${what}: the stored URLs both runs selected differ from the clean run's${isDeepStrictEqual(mine, theirs) ? '' : `: ${urlDiff(c, ref)}`}`);
    // (A crawl repaired by support keeps to the patterns support gave it, which the clean run
    // followed too: /docs itself under ^/docs.)
    const patterns = (inputFor(c.run.shape).select?.include ?? []).map((p) => new RegExp(p));
    const cleanStored = new Set(ref.urls);
    const beyond = c.urls.filter((u) => !mySelection.has(u) && !cleanStored.has(u) && !patterns.some((p) => p.test(new URL(u).pathname)));
    assert.deepEqual(beyond, [], `${what}: pages stored outside the selection, its patterns and the clean run's pages: ${urlDiff(c, ref)}`);
    const perPageCredits = (x: Checked) => x.result.credits.spent - x.urls.length;
    assert.equal(perPageCredits(c), perPageCredits(ref), `${what}: credits spent ${c.result.credits.spent} for ${c.urls.length} pages, clean ${ref.result.credits.spent} for ${ref.urls.length}`);
  }

  t.diagnostic(`selections other than the clean run's (their maps listed other URLs): ${otherSelections.length} of ${checked.length} runs${otherSelections.length ? ` (${otherSelections.slice(0, 5).join(', ')}${otherSelections.length > 5 ? ', …' : ''})` : ''}`);

  // ---- checks: the service's own records ----
  const stormJobs = jobs().filter((j) => j.createdAt >= stormStart);
  const crawlJobs = stormJobs.filter((j) => j.kind === 'crawl');
  const batchJobs = stormJobs.filter((j) => j.kind === 'batch_scrape');
  const expectedCrawl = runs.reduce((n, r) => n + crawlJobsPerRun(r.shape), 0);
  // Each run's own batch jobs (its chunks when governed: as many as its own selection needs).
  const expectedBatch = checked.reduce((n, c) => n + batchJobIds(c.result).length, 0);
  assert.equal(crawlJobs.length, expectedCrawl, `crawl jobs: ${crawlJobs.length}, one per run (two when repaired) is ${expectedCrawl}`);
  assert.equal(batchJobs.length, expectedBatch, `batch jobs: ${batchJobs.length}, the runs report ${expectedBatch} (one each, one per chunk when governed)`);
  const resultJobs = checked.flatMap((c) => [c.result.stages.crawl?.jobId, ...batchJobIds(c.result)]).filter((x): x is string => !!x);
  assert.equal(new Set(resultJobs).size, resultJobs.length, 'two runs report the same job');
  const serviceJobIds = new Set(stormJobs.map((j) => j.id));
  for (const id of resultJobs) assert.ok(serviceJobIds.has(id), `job ${id} of a run is not among the service's jobs`);

  // Credits: everything but map exactly as the clean runs. POST /v2/map is a synchronous call
  // without an idempotency key: when a kill or a Temporal restart loses a map's result after the
  // service charged it (answer sent, activity not yet completed), the retry pays again. Such a
  // second map charge is counted and allowed only where it can happen: each needs an earlier map
  // charge followed by a disruption within a minute.
  const stormLedger = service.ledger.slice(ledgerFrom);
  const charged = stormLedger.reduce((n, e) => n + e.credits, 0);
  const cleanTotal = runs.reduce((n, r) => n + (clean.get(r.shape.name)?.result.credits.spent ?? 0), 0);
  const cleanMap = runs.reduce((n, r) => n + (clean.get(r.shape.name)?.result.credits.byStage.map ?? 0), 0);
  const mapCharges = stormLedger.filter((e) => e.reason === 'map');
  const mapCharged = mapCharges.reduce((n, e) => n + e.credits, 0);
  const byReason = (entries: typeof stormLedger) => JSON.stringify(Object.fromEntries(
    [...new Set(entries.map((e) => e.reason))].map((r) => [r, entries.filter((e) => e.reason === r).reduce((n, e) => n + e.credits, 0)])));
  // Besides map, what the service charged is what the runs accounted for (each run's own pages:
  // a limited crawl's may differ from its clean run's, see above), and differs from the clean
  // runs' total only by the pages the runs stored besides theirs.
  const runsSpent = checked.reduce((n, c) => n + c.result.credits.spent - (c.result.credits.byStage.map ?? 0), 0);
  const pagesBeyondClean = checked.reduce((n, c) => n + c.urls.length - (clean.get(c.run.shape.name)?.urls.length ?? 0), 0);
  assert.equal(charged - mapCharged, runsSpent, `the service charged ${charged - mapCharged} credits besides map; the runs accounted for ${runsSpent} (charged by reason: ${byReason(stormLedger)}; ${oddJobs(stormLedger, stormJobs)})`);
  assert.equal(runsSpent, cleanTotal - cleanMap + pagesBeyondClean, `the runs spent ${runsSpent} credits besides map; clean runs of the same shapes ${cleanTotal - cleanMap}, and the runs stored ${pagesBeyondClean} pages more than those`);
  const disruptions = [...kills.map((k) => k.at), temporalRestart?.at ?? 0, storeRestart?.at ?? 0];
  const mapsPaidTwice = (mapCharged - cleanMap) / (mapCharges[0]?.credits ?? 1);
  const mapsBeforeDisruption = mapCharges.filter((e) => disruptions.some((d) => d >= e.at && d - e.at <= 60_000)).length;
  assert.ok(mapCharged >= cleanMap, `map: charged ${mapCharged}, clean ${cleanMap}`);
  assert.ok(mapsPaidTwice <= mapsBeforeDisruption, `${mapsPaidTwice} maps paid twice, but only ${mapsBeforeDisruption} map charges were followed by a kill or restart within a minute`);

  const peaks = peakPerWindow(limiter.admitted.filter((a) => a.teamId === TEAM));
  for (const [group, peak] of peaks) {
    const limit = profile.rateLimits[group];
    if (limit !== undefined) assert.ok(peak <= limit, `${group}: ${peak} requests admitted within 60 s, limit ${limit}`);
  }
  const stormRequests = service.requests.slice(requestsFrom);
  const rejected429 = stormRequests.filter((r) => r.status === 429).length;

  // Webhooks: a job whose end was not signalled (the service dropped the delivery, or the
  // signal failed while Temporal was down) is noticed by the workflow's safety poll.
  await sleep(500);
  const decisions = readFileSync(receiver.logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ReceiverRecord);
  const signalledEnd = new Set(decisions.filter((d) => d.outcome === 'signalled' && /\.(completed|failed)$/.test(d.type ?? '')).map((d) => d.jobId));
  const noticeAfterEnd = (job: Job): number | undefined => {
    const end = job.completedAt;
    if (end === undefined) return undefined;
    const base = job.kind === 'crawl' ? `/v2/crawl/${job.id}` : `/v2/batch/scrape/${job.id}`;
    let first: number | undefined;
    for (const r of stormRequests) {
      if (r.key !== SCALE_WORKER_KEY || r.doneAt < end || !(r.path === base || r.path.startsWith(`${base}/`))) continue;
      const at = Math.max(r.at, end);
      if (first === undefined || at < first) first = at;
    }
    return first === undefined ? undefined : first - end;
  };
  const lostWaits: number[] = [];
  const signalledWaits: number[] = [];
  for (const job of [...crawlJobs, ...batchJobs]) {
    const wait = noticeAfterEnd(job);
    if (wait === undefined) continue;
    (signalledEnd.has(job.id) ? signalledWaits : lostWaits).push(wait);
  }
  // The bound: one safety poll interval, plus what a poll can itself wait for on this fleet: a
  // Retry-After of the per-minute limit (up to 60 s), and a killed worker's activity timing out
  // and starting again elsewhere (heartbeat 15 s + the restart), with room for a busy machine.
  const lostBoundMs = profile.safetyPollMs + 60_000 + 60_000;
  const maxLostWait = lostWaits.length > 0 ? Math.max(...lostWaits) : 0;
  assert.ok(maxLostWait <= lostBoundMs, `a job whose webhook was lost waited ${sec(maxLostWait)} to be noticed (bound ${sec(lostBoundMs)})`);
  assert.deepEqual(fleet.unexpectedExits, [], 'a worker exited without being killed');

  // ---- the table ----
  const pages = checked.reduce((n, c) => n + c.urls.length, 0);
  const runMs = checked.map((c) => c.runMs);
  const wallMs = stormEnd - stormStart;
  const table: Record<string, string | number> = {
    runs: `${checked.length} (${checked.filter((c) => c.run.via === 'schedule').length} through a schedule; ${checked.filter((c) => c.run.shape.interact).length} with interact, ${checked.filter((c) => c.run.shape.repair).length} repaired by support)`,
    pages,
    'pages/s': (pages / (wallMs / 1000)).toFixed(1),
    'p50 / p95 run time': `${sec(pct(runMs, 50))} / ${sec(pct(runMs, 95))}`,
    'wall time': sec(wallMs),
    kills: kills.length,
    restarts: `Temporal server 1 (down ${sec((temporalRestart?.stopMs ?? 0) + (temporalRestart?.startMs ?? 0))}, ${temporalRestart?.open} runs open), store PostgreSQL 1 (down ${sec(storeRestart?.downMs ?? 0)}, ${storeRestart?.open} runs open)`,
    '429s': rejected429 === 0 ? 0 : `${rejected429} (${[...new Set(stormRequests.filter((r) => r.status === 429).map((r) => r.route))].sort()
      .map((route) => `${route} ${stormRequests.filter((r) => r.status === 429 && r.route === route).length}`).join(', ')})`,
    governor: governed ? 'on (SCALE_GOVERNOR=1: every run with governor: {})' : 'off',
    lost: checked.filter((c) => c.result.status !== 'completed').length + checked.reduce((n, c) => n + c.serviceUrls.filter((u) => !c.urls.includes(u)).length, 0),
    duplicated: checked.reduce((n, c) => n + (c.urls.length - new Set(c.urls).size), 0),
    'worker peak RSS': `${(fleet.peakRssKb() / 1024).toFixed(0)} MB`,
    'jobs (crawl / batch)': `${crawlJobs.length} / ${batchJobs.length}`,
    'credits (clean)': `${charged} (${cleanTotal})${mapsPaidTwice > 0 ? `; ${mapsPaidTwice} map call(s) paid twice after a kill lost the answer` : ''}`,
    'peak requests per 60 s (limit)': [...peaks.entries()].filter(([g]) => profile.rateLimits[g] !== undefined)
      .map(([g, p]) => `${g} ${p} (${profile.rateLimits[g]})`).join(', '),
    'webhooks lost / max wait after a lost one': `${lostWaits.length} / ${sec(maxLostWait)} (safety poll ${sec(profile.safetyPollMs)}; ${service.app.webhooks.stats.dropped} dropped by the service)`,
  };
  const report: Report = {
    profile: profile.name, measuredAt: new Date().toISOString(), table,
    details: { setupMs, events, kills, temporalRestart, storeRestart, startedMs, cleanRuns: [...clean.values()].map((c) => ({ shape: c.run.shape.name, pages: c.urls.length, credits: c.result.credits.spent, ms: c.runMs })) },
  };
  writeReport(report);
  for (const [k, v] of Object.entries(table)) t.diagnostic(`${k}: ${v}`);

  for (const { scheduleId } of schedules) await deleteSchedule(client, scheduleId).catch(() => undefined);

  // ---- the receiver under load ----
  const waiting: string[] = [];
  // Runs parked on a zero budget wait for a raise for an hour: real workflows to signal.
  for (let i = 0; i < 20; i++) {
    const id = `scale-waiting-${i}-${Date.now()}`;
    await startPipeline(client, { url: `${sites.get(10)?.url ?? ''}/`, stages: { interact: false, batch: false }, budget: { credits: 0, waitForRaiseMs: 3_600_000 } }, { taskQueue: TASK_QUEUE, workflowId: id });
    waiting.push(id);
  }
  let load: ReceiverLoadResult;
  try {
    load = await loadReceiver({
      url: receiver.url, pid: receiver.child.pid as number, logFile: receiver.logFile, secret: WEBHOOK_SECRET,
      workflowIds: waiting, deliveries: profile.deliveries, seed: profile.seed, stopReceiver: () => receiver.stop(),
    });
  } finally {
    for (const id of waiting) await handleOf(id).terminate('scale test: receiver load done').catch(() => undefined);
  }
  report.receiver = {
    deliveries: `${load.deliveries} (${load.unique} unique, ${load.duplicates} duplicates, ${load.forged} forged)`,
    'deliveries/s': load.perSecond.toFixed(0),
    seconds: load.seconds.toFixed(1),
    'signals sent': load.signalled,
    'duplicates dropped': load.duplicatesDropped,
    'forged refused': load.forgedRefused,
    'late signal failures': load.lateFailures,
    'peak RSS': `${(load.peakRssKb / 1024).toFixed(0)} MB`,
    statuses: Object.entries(load.statuses).map(([s, n]) => `${s}: ${n}`).join(', '),
  };
  writeReport(report);
  for (const [k, v] of Object.entries(report.receiver)) t.diagnostic(`receiver ${k}: ${v}`);
  assert.equal(load.signalled, load.unique, 'every unique delivery becomes one signal');
  assert.equal(load.duplicatesDropped, load.duplicates, 'every duplicate is dropped');
  assert.equal(load.forgedRefused, load.forged, 'every forged delivery is refused');
  assert.equal(load.lateFailures, 0, `a signal failed after its delivery was answered: ${load.lateReasons.slice(0, 3).join(' | ')}`);
  assert.equal(load.otherOutcomes, 0, 'a delivery had another outcome');
});
