// Restart scenarios with the real local service process: it is SIGKILLed while a job scrapes
// and started again on the same port, so it answers 404 for the job (it keeps jobs and bills in
// memory), as a self-hosted server that crashes does. The demo site runs in this process behind
// a pause per page (slow-site.ts), so it stays up, counts every fetch, and a job lasts seconds.
//   a. the service killed and restarted mid-crawl;
//   b. mid-batch (mode batch);
//   c. as a, and the worker killed during the recovery itself (the recovery job started, none of
//      its pages stored), then started again;
//   d. a job lost twice: the service killed again while the recovery job scrapes;
//   e. a job that stops moving (the service's stall fault) under a short `stallAfterMs`.
// Each checks: the run ends; every page stored once; pages the lost job stored not fetched
// again (the start page may be); the stage's and run's documents equal the store's; the run's
// credits = the jobs' creditsUsed as the service answers + the labelled estimate for each lost
// job, the estimate the larger of the lost job's stored pages at 1 credit and the last bill the
// service answered the run (from its history); what the test read just before the kill is
// shown beside it (pages billed and never collected die with the service). Every check is evaluated and recorded with the figures
// before the scenario fails. CHAOS_SEED picks the kill moments and pauses.
import { after, before, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPipeline } from '../../src/client/pipeline.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { startDemoSite, type DemoSite } from '../../packages/service/src/demo-site/index.js';
import { jobStoreOf } from '../../packages/service/src/jobs/index.js';
import { heldPages } from '../../packages/service/src/jobs/stall.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult, StageReport } from '../../src/workflows/state.js';
import { answeredCredits } from '../helpers/run-history.js';
import { quietTemporalLogs } from '../helpers/temporal.js';
import { allowPrivateHosts } from '../helpers/private-hosts.js';
import {
  chaosProfile, chaosTeam, prebuiltWorkflowBundle, seededRandom, sleep, spawnWorker, startRecordingService, startTemporalServer, waitFor,
  TEST_KEY, WORKER_KEY, type RecordingService, type TemporalServer, type WorkerProcess,
} from './harness.js';
import { recordScenario, seconds } from './report.js';
import { Checks, estimates, jobCredits, otherStageCredits, readJob, storeFigures, type StoreFigures } from './restart-figures.js';
import { createServiceProcess, type ServiceProcess } from './service-process.js';
import { startSlowSite, type SlowSite } from './slow-site.js';

const profile = chaosProfile();
const random = seededRandom(profile.seed + 43);
/** An integer in [lo, hi], drawn from the seed. */
const draw = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
const SITE_PAGES = 100;
/** Each page fetch waits this long, with 2 pages at a time (the team's concurrency): ~6 pages/s. */
const PAGE_DELAY_MS = 300;
const CONCURRENCY = 2;
/** How long a run may take after the fault before the scenario calls it stuck. */
const END_BOUND_MS = profile.name === 'ci' ? 120_000 : 300_000;
const STALL_AFTER_MS = 15_000;
const TASK_QUEUE = 'restart';
const STALL_QUEUE = 'restart-stall';

let dir: string;
let temporal: TemporalServer;
let site: DemoSite;
let slow: SlowSite;
let service: ServiceProcess;
let store: FilesystemStore;
let bundlePath: string;
let worker: WorkerProcess | undefined;
const workerLog: string[] = [];

before(async () => {
  quietTemporalLogs();
  dir = mkdtempSync(join(tmpdir(), 'webdata-restart-'));
  temporal = await startTemporalServer({ dbFilename: join(dir, 'temporal.db') });
  site = await startDemoSite({ pages: SITE_PAGES, seed: profile.seed });
  slow = await startSlowSite(site, PAGE_DELAY_MS);
  service = await createServiceProcess({ dir, teams: [chaosTeam({ concurrency: CONCURRENCY })], probeKey: TEST_KEY });
  // Before any child starts: the service, worker and site on 127.0.0.1 are allowed by host:port.
  allowPrivateHosts(slow.url, service.url);
  await service.start();
  store = new FilesystemStore({ root: join(dir, 'store') });
  bundlePath = await prebuiltWorkflowBundle(dir);
  worker = await startWorker(service.url, TASK_QUEUE);
});

after(async () => {
  await worker?.kill('SIGKILL');
  await service?.kill();
  await slow?.close();
  await site?.close();
  await store?.close();
  await temporal?.close();
  if (dir && process.env.CHAOS_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
});

async function startWorker(serviceUrl: string, taskQueue: string): Promise<WorkerProcess> {
  const w = spawnWorker({ temporalAddress: temporal.address, serviceUrl, apiKey: WORKER_KEY, store: join(dir, 'store'), taskQueue, bundlePath }, workerLog);
  await w.ready;
  return w;
}

/** The issue's input: a map of the site, the blog selected, the crawl and batch stages' defaults; no cache. */
function input(siteUrl: string, extra: Partial<PipelineInput> = {}): PipelineInput {
  return {
    url: `${siteUrl}/`,
    select: { include: ['^/blog'] },
    map: { ignoreCache: true },
    crawl: { scrapeOptions: { maxAge: 0 } },
    batch: { scrapeOptions: { maxAge: 0 } },
    stages: { interact: false },
    ...extra,
  };
}

/** Waits until the run's store holds `n` documents of `kind` from one job not in `exclude`; returns that job. */
async function storedBy(runId: string, kind: string, n: number, exclude: string[] = []): Promise<string> {
  let found: string | undefined;
  await waitFor(async () => {
    const counts = new Map<string, number>();
    for await (const doc of store.readDocuments(runId)) {
      if (doc.kind !== kind || exclude.includes(doc.jobId)) continue;
      counts.set(doc.jobId, (counts.get(doc.jobId) ?? 0) + 1);
    }
    found = [...counts].find(([, c]) => c >= n)?.[0];
    return found !== undefined;
  }, 180_000, `${n} ${kind} pages stored`, 100);
  return found as string;
}

/** A loss: the job, what the service reported for it just before the kill, and when. */
interface Loss {
  jobId: string;
  kind: 'crawl' | 'batch';
  killedAt: number;
  reportedBefore: { status: string; completed: number; creditsUsed: number };
  downMs: number;
}

/** Reads the job's status, SIGKILLs the service, waits `downMs`, starts it again on the same port. */
async function loseJob(jobId: string, kind: 'crawl' | 'batch', afterRestartKill?: () => void): Promise<Loss> {
  const read = await readJob(service.url, TEST_KEY, kind, jobId);
  if (!read) throw new Error(`the service did not know ${kind} ${jobId} before the kill`);
  await service.kill();
  const killedAt = Date.now();
  afterRestartKill?.();
  const downMs = draw(300, 2_000);
  await sleep(downMs);
  await service.start();
  return { jobId, kind, killedAt, reportedBefore: { status: read.status, completed: read.completed, creditsUsed: read.creditsUsed }, downMs };
}

type Handle = Awaited<ReturnType<typeof startPipeline>>;

/** The run's result, or undefined when it has not ended `boundMs` after `from` (it is terminated). */
async function ended(handle: Handle, from: number, boundMs: number): Promise<{ result?: PipelineResult; endedAt: number; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => { timer = setTimeout(() => r('late'), Math.max(1_000, from + boundMs - Date.now())); });
  try {
    const out = await Promise.race([handle.result().then((result) => ({ result }), (e: unknown) => ({ error: String(e) })), late]);
    const endedAt = Date.now();
    if (out === 'late') {
      await handle.terminate('restart scenario: no end within its bound').catch(() => undefined);
      return { endedAt, error: `no end ${seconds(boundMs)} after the fault` };
    }
    return { ...out, endedAt };
  } finally {
    clearTimeout(timer);
  }
}

interface Evaluated {
  checks: Checks;
  figures: Record<string, string | number>;
}

/**
 * The checks every scenario shares, from the result, the store, the service's answers now and
 * the site's fetches. `losses`: jobs the service forgot (their credits must be estimated);
 * `stalled`: jobs that stopped moving (the service still bills them).
 */
async function evaluate(
  runId: string, out: { result?: PipelineResult; error?: string }, losses: Loss[], siteRequests: Array<{ at: number; path: string }>,
  options: { statuses: Array<PipelineResult['status']>; stalled?: Array<{ jobId: string; at: number }>; serviceUrl?: string } = { statuses: ['completed'] },
): Promise<Evaluated & { store: StoreFigures }> {
  const checks = new Checks();
  const figures: Record<string, string | number> = {};
  const fig = await storeFigures(store, runId);
  const result = out.result;
  checks.ok('the run ends', result !== undefined, out.error ?? '');
  figures['pages stored'] = `${fig.total} (crawl ${fig.byKind.crawl ?? 0}, batch ${fig.byKind.batch ?? 0}); duplicates ${fig.duplicates.length}${fig.duplicates.length ? ` (${fig.duplicates.join(' ')})` : ''}`;
  checks.equal('duplicates in the store', fig.duplicates.length, 0);

  // Pages a lost or stalled job stored, fetched again after the fault (the start page may be: it is the way in).
  const start = '/';
  const faults = [...losses.map((l) => ({ jobId: l.jobId, at: l.killedAt })), ...(options.stalled ?? [])];
  let refetched = 0;
  let startAgain = 0;
  const refetchedPaths: string[] = [];
  for (const f of faults) {
    const stored = new Set(fig.byJob.get(f.jobId) ?? []);
    for (const r of siteRequests) {
      if (r.at <= f.at || !stored.has(r.path)) continue;
      if (r.path === start) startAgain += 1;
      else {
        refetched += 1;
        refetchedPaths.push(r.path);
      }
    }
  }
  figures['lost/stalled pages fetched again'] = `${refetched}${refetchedPaths.length ? ` (${refetchedPaths.join(' ')})` : ''}; start page again ${startAgain}`;
  checks.equal('pages the lost job stored fetched again', refetched, 0);
  if (!result) return { checks, figures, store: fig };

  figures.outcome = result.status;
  checks.ok('run status', options.statuses.includes(result.status), `${result.status} not in ${options.statuses.join('/')}`);
  if (result.status === 'partial') {
    const reasons = Object.values(result.stages).map((s) => s?.reason).filter(Boolean);
    checks.ok('a partial run says why', reasons.length > 0);
  }
  const crawl = result.stages.crawl;
  const batch = result.stages.batch;
  figures['documents: crawl / batch / run vs store'] = `${crawl?.documents ?? '-'} / ${batch?.documents ?? '-'} / ${result.documents} vs ${fig.byKind.crawl ?? 0} / ${fig.byKind.batch ?? 0} / ${fig.total}`;
  checks.equal('crawl stage documents = store', crawl?.documents ?? 0, fig.byKind.crawl ?? 0);
  checks.equal('batch stage documents = store', batch?.documents ?? 0, fig.byKind.batch ?? 0);
  checks.equal('run documents = store', result.documents, fig.total);

  // Credits: each job's creditsUsed as the service answers now, the labelled estimate for each lost one.
  const jobs = await jobCredits(options.serviceUrl ?? service.url, TEST_KEY, result.jobs);
  const est = estimates(result);
  let expected = otherStageCredits(result);
  const parts: string[] = [];
  for (const j of jobs) {
    if (j.creditsUsed === 'lost') {
      const e = est.get(j.jobId);
      const loss = losses.find((l) => l.jobId === j.jobId);
      const storedPages = fig.byJob.get(j.jobId)?.length ?? 0;
      checks.ok(`estimate labelled for lost ${j.name}`, e !== undefined, `credits.estimated: ${JSON.stringify(result.credits.estimated ?? [])}`);
      // The estimate is the larger of two facts: the stored pages' price, and the last bill the
      // service answered the run (pages it billed after that, in flight at the kill, are gone
      // with it: the test's own read just before the kill is shown beside it, not required).
      const reported = loss?.reportedBefore.creditsUsed ?? 0;
      const answered = await answeredCredits(temporal.client, runId, j.jobId);
      checks.equal(`estimate for ${j.name} = max(stored pages x 1, last creditsUsed answered to the run)`, e, Math.max(storedPages, answered));
      checks.ok(`estimate for ${j.name} >= its stored pages x 1`, (e ?? -1) >= storedPages, `${e} < ${storedPages}`);
      expected += e ?? 0;
      parts.push(`${j.name} lost: estimated ${e ?? '?'} (stored ${storedPages}, last answered to the run ${answered}, read by the test before the kill ${loss ? reported : '?'})`);
    } else {
      expected += j.creditsUsed;
      parts.push(`${j.name} ${j.creditsUsed}`);
    }
  }
  figures.credits = `run ${result.credits.spent} vs jobs ${expected - otherStageCredits(result)} + other stages ${otherStageCredits(result)} (${parts.join('; ')})`;
  checks.equal('run credits = jobs creditsUsed + estimates', result.credits.spent, expected);
  for (const l of losses) {
    checks.equal(`job ${l.jobId} scraping at the kill`, l.reportedBefore.status, 'scraping');
    checks.ok(`lost job ${l.jobId} in the run's jobs`, Object.values(result.jobs).includes(l.jobId));
  }
  if (crawl?.recovered) figures.recovered = JSON.stringify({ lostPages: crawl.recovered.lostPages, pages: crawl.recovered.pages, lostCredits: crawl.recovered.lostCredits });
  if (batch?.recovered) figures['batch recovered'] = JSON.stringify({ lostPages: batch.recovered.lostPages, pages: batch.recovered.pages, lostCredits: batch.recovered.lostCredits });
  return { checks, figures, store: fig };
}

function finish(key: string, name: string, injected: string, faultAt: number, endedAt: number, e: Evaluated, extra: Record<string, string | number> = {}): void {
  e.figures['fault → end'] = seconds(endedAt - faultAt);
  e.figures.checks = e.checks.summary();
  recordScenario(profile.name, key, { scenario: name, injected, outcome: String(e.figures.outcome ?? 'no end'), figures: { ...extra, ...e.figures } });
  e.checks.assertAll();
}

let seq = 0;
const runId = (name: string) => `restart-${name}-${Date.now()}-${seq++}`;
const timeout = Math.min(profile.scenarioTimeoutMs, END_BOUND_MS + 180_000);

test('a. the service SIGKILLed and restarted mid-crawl', { timeout }, async () => {
  const id = runId('crawl');
  const k = draw(3, profile.name === 'ci' ? 8 : 15);
  const handle = await startPipeline(temporal.client, input(slow.url), { taskQueue: TASK_QUEUE, workflowId: id });
  const jobId = await storedBy(id, 'crawl', k);
  const loss = await loseJob(jobId, 'crawl');
  const out = await ended(handle, loss.killedAt, END_BOUND_MS);
  const e = await evaluate(id, out, [loss], slow.requests);
  finish('restart-a-crawl', 'a. service SIGKILL mid-crawl', `killed once the crawl had ${k} pages stored (service: ${loss.reportedBefore.completed} completed, ${loss.reportedBefore.creditsUsed} credits), down ${loss.downMs} ms, restarted on the same port`, loss.killedAt, out.endedAt, e);
});

test('b. the service SIGKILLed and restarted mid-batch', { timeout }, async () => {
  const id = runId('batch');
  const k = draw(3, profile.name === 'ci' ? 8 : 15);
  const handle = await startPipeline(temporal.client, input(slow.url, { mode: 'batch' }), { taskQueue: TASK_QUEUE, workflowId: id });
  const jobId = await storedBy(id, 'batch', k);
  const loss = await loseJob(jobId, 'batch');
  const out = await ended(handle, loss.killedAt, END_BOUND_MS);
  const e = await evaluate(id, out, [loss], slow.requests);
  finish('restart-b-batch', 'b. service SIGKILL mid-batch', `mode batch; killed once the batch had ${k} pages stored (service: ${loss.reportedBefore.completed} completed, ${loss.reportedBefore.creditsUsed} credits), down ${loss.downMs} ms`, loss.killedAt, out.endedAt, e);
});

test('c. the worker SIGKILLed during the recovery itself', { timeout }, async () => {
  const id = runId('recovery-worker');
  const k = draw(3, 8);
  const handle = await startPipeline(temporal.client, input(slow.url), { taskQueue: TASK_QUEUE, workflowId: id });
  const jobId = await storedBy(id, 'crawl', k);
  // The first fetch the restarted service makes is the recovery job's: it started. The worker dies then.
  let workerKilledAt = 0;
  const current = worker;
  const loss = await loseJob(jobId, 'crawl', () => {
    const killedAfter = Date.now();
    slow.onRequest = (r) => {
      if (workerKilledAt || r.at <= killedAfter) return;
      workerKilledAt = r.at;
      current?.child.kill('SIGKILL');
    };
  });
  await waitFor(() => workerKilledAt > 0, 180_000, 'the recovery job\'s first fetch', 50);
  slow.onRequest = undefined;
  await current?.exited;
  let recoveryStoredAtKill = 0;
  for await (const doc of store.readDocuments(id)) if (doc.jobId !== jobId && doc.kind === 'crawl') recoveryStoredAtKill += 1;
  const pauseMs = draw(500, 3_000);
  await sleep(pauseMs);
  worker = await startWorker(service.url, TASK_QUEUE);
  const out = await ended(handle, loss.killedAt, END_BOUND_MS);
  const e = await evaluate(id, out, [loss], slow.requests);
  e.checks.equal('recovery pages stored when the worker died', recoveryStoredAtKill, 0);
  finish('restart-c-recovery-worker', 'c. worker SIGKILL during the recovery', `service killed once the crawl had ${k} pages stored, restarted; the worker killed at the recovery job's first fetch (${recoveryStoredAtKill} of its pages stored), started again ${pauseMs} ms later`, loss.killedAt, out.endedAt, e, {
    'worker down': seconds(worker.startedAt - workerKilledAt),
  });
});

test('d. a job lost twice: the service killed again while the recovery job scrapes', { timeout }, async () => {
  const id = runId('lost-twice');
  const k = draw(3, 8);
  const handle = await startPipeline(temporal.client, input(slow.url), { taskQueue: TASK_QUEUE, workflowId: id });
  const first = await storedBy(id, 'crawl', k);
  const loss1 = await loseJob(first, 'crawl');
  const k2 = draw(2, 5);
  const second = await storedBy(id, 'crawl', k2, [first]);
  const loss2 = await loseJob(second, 'crawl');
  const out = await ended(handle, loss2.killedAt, END_BOUND_MS);
  // A second loss in a stage may end the run partial with that reason (the contract's "recovery cannot complete").
  const e = await evaluate(id, out, [loss1, loss2], slow.requests, { statuses: ['completed', 'partial'] });
  finish('restart-d-lost-twice', 'd. a job lost twice', `killed once the crawl had ${k} pages stored, and again once its recovery job had ${k2} (down ${loss1.downMs} / ${loss2.downMs} ms)`, loss1.killedAt, out.endedAt, e, {
    'second loss after the first': seconds(loss2.killedAt - loss1.killedAt),
  });
});

test('e. a job that stops moving: declared stalled after stallAfterMs, cancelled, the rest recovered', { timeout: Math.min(profile.scenarioTimeoutMs, STALL_AFTER_MS + END_BOUND_MS + 180_000) }, async () => {
  // The stall fault is set through the injector of an in-process service (taken when a job
  // starts), and cleared once the crawl job started: the recovery runs normally.
  let rec: RecordingService | undefined;
  let stallWorker: WorkerProcess | undefined;
  try {
    rec = await startRecordingService({ sitePages: SITE_PAGES, seed: profile.seed, teams: [chaosTeam({ concurrency: CONCURRENCY })] });
    const svc = rec;
    stallWorker = await startWorker(svc.url, STALL_QUEUE);
    const k = draw(3, 8);
    svc.app.faults.set('local', { stallJobsAfterPages: k });
    let crawlJob: string | undefined;
    const stop = svc.onArrival((a) => {
      if (a.key !== WORKER_KEY || a.route !== 'POST /v2/crawl' || crawlJob) return;
      crawlJob = 'starting';
      void a.answered.then(() => svc.app.faults.set('local', undefined));
    });
    const id = runId('stall');
    const checks = new Checks();
    let handle: Handle | undefined;
    try {
      handle = await startPipeline(temporal.client, { ...input(svc.siteUrl), stallAfterMs: STALL_AFTER_MS } as PipelineInput, { taskQueue: STALL_QUEUE, workflowId: id });
    } catch (err) {
      checks.ok('the run input takes stallAfterMs', false, String(err).split('\n')[0]);
    }
    if (!handle) {
      stop();
      recordScenario(profile.name, 'restart-e-stall', { scenario: 'e. a job that stops moving', injected: `stall fault after ${k} pages`, outcome: 'not started', figures: { checks: checks.summary() } });
      checks.assertAll();
      return;
    }
    const jobId = await storedBy(id, 'crawl', k);
    stop();
    // Stalled: a page held at the service's gate and the k pages let through in.
    const job = () => jobStoreOf(svc.app.context)?.get(jobId);
    await waitFor(() => { const j = job(); return j !== undefined && heldPages(j) > 0 && j.documents.length === k; }, 60_000, 'the crawl job stalled', 50);
    const stalledAt = Date.now();
    const reportedBefore = await readJob(svc.url, TEST_KEY, 'crawl', jobId);
    const out = await ended(handle, stalledAt, STALL_AFTER_MS + END_BOUND_MS);
    const requests = svc.site.requests.map((r) => ({ at: r.at, path: new URL(r.path, 'http://x').pathname }));
    const e = await evaluate(id, out, [], requests, { statuses: ['completed'], stalled: [{ jobId, at: stalledAt }], serviceUrl: svc.url });
    for (const f of checks.failed) e.checks.ok(f, false);
    const crawl = out.result?.stages.crawl as (StageReport & { stalled?: { jobId?: string; completed?: number; stillForMs?: number } }) | undefined;
    e.checks.ok('the stage reports stalled', crawl?.stalled !== undefined, JSON.stringify(crawl ?? null).slice(0, 300));
    e.checks.equal('stalled.jobId', crawl?.stalled?.jobId, jobId);
    e.checks.equal('stalled.completed', crawl?.stalled?.completed, k);
    e.checks.ok('stalled.stillForMs >= stallAfterMs', (crawl?.stalled?.stillForMs ?? 0) >= STALL_AFTER_MS, String(crawl?.stalled?.stillForMs));
    const after = await readJob(svc.url, TEST_KEY, 'crawl', jobId);
    e.checks.equal('the stalled job was cancelled (DELETE)', after?.status, 'cancelled');
    e.checks.equal('no estimate: the service bills a stalled job', out.result?.credits.estimated, undefined);
    e.checks.ok('ended within stallAfterMs + bound', out.result !== undefined && out.endedAt - stalledAt <= STALL_AFTER_MS + END_BOUND_MS);
    finish('restart-e-stall', 'e. a job that stops moving', `stall fault: the crawl stops at ${k} pages (service: ${reportedBefore?.completed} completed, ${reportedBefore?.creditsUsed} credits), stallAfterMs ${STALL_AFTER_MS}`, stalledAt, out.endedAt, e, {
      'stalled report': JSON.stringify(crawl?.stalled ?? null),
    });
  } finally {
    await stallWorker?.kill('SIGKILL');
    await rec?.close();
  }
});
