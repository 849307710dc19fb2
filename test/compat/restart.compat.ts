// The open-source server crashed and started again under a running pipeline (a real Temporal dev
// server and worker, a real store, a small slow site on 127.0.0.10): its API and queue worker
// killed with SIGKILL (kill.sh: each with every process below it) and started again 3 s later on
// the same ports (FC_ONLY start.sh), scripts/test-compat.mjs passing where the server is.
// The kill comes once the server reports a few pages done (it lists none before the job ends).
//   a. mid-crawl, Redis kept: the server pauses, goes on, and leaves the crawl `scraping` at
//      total-1 for good: the run declares the job stalled after `stallAfterMs` without progress,
//      cancels it and recovers only the missing pages;
//   b. mid-crawl, Redis started again empty: the job is lost (404 Job not found) and recovered;
//   c. mid-batch, Redis kept: the batch stalls like the crawl of (a).
// Each: the run ends (completed, or partial with a stated reason) within the stall time plus a
// bound after the kill; every page stored once; the stages' and the run's documents equal the
// store's count; the crawl and batch stages' credits equal the jobs' own `creditsUsed` (that
// server has no billing), a lost job's estimate labelled in `credits.estimated`. The figures of
// each scenario (the job's last progress before the kill, what the server did after the restart,
// when the stall or loss was declared, pages recovered and stored, time from the kill to the end)
// are printed and written to .data/compat/restart-report.json.
// Run LAST in test:compat: it kills the server's parts the other files use.
//   WEBDATA_RESTART_WITHOUT_STALL=1  leaves `stallAfterMs` out of the input, to watch a workflow
//   that has no progress rule (the run is then bounded by the test's deadline only).
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/index.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { getProgress, startPipeline } from '../../src/client/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult, StageReport } from '../../src/workflows/state.js';
import { createWebDataWorker } from '../../src/worker.js';
import { killParts, ossServerFromEnv, startParts, type OssPart, type OssServer } from '../helpers/oss-restart.js';
import { allowPrivateHosts } from '../helpers/private-hosts.js';
import { answeredCredits } from '../helpers/run-history.js';
import { startTestTemporal } from '../helpers/temporal.js';
import { startSlowSite, type SlowSite } from './slow-site.js';

const SITE_HOST = process.env.WEBDATA_OSS_SITE_HOST ?? '127.0.0.10';
const TASK_QUEUE = 'compat-restart';
/** The run's stall time: the least the input allows is 10 s; 30 s rides out a slow page on a busy machine. */
const STALL_MS = 30_000;
/** After the kill, the run ends within the stall time plus this (restart, cancel, a recovery job of a few pages). */
const END_BOUND_MS = 240_000;
const RESTART_PAUSE_MS = 3_000;
/** Each page's delay from the kill on. */
const AFTER_KILL_DELAY_MS = 100;
const WITHOUT_STALL = process.env.WEBDATA_RESTART_WITHOUT_STALL === '1';
const REPORT_FILE = join(fileURLToPath(new URL('../../.data/compat/', import.meta.url)), 'restart-report.json');

let server: OssServer;
let env: TestWorkflowEnvironment;
let site: SlowSite;
let api: WebDataClient;
let store: FilesystemStore;
let worker: Worker;
let workerRun: Promise<void>;
let dir: string;
const report: Record<string, unknown> = {};

before(async () => {
  const found = ossServerFromEnv();
  assert.ok(typeof found !== 'string', typeof found === 'string' ? found : '');
  server = found;
  dir = mkdtempSync(join(tmpdir(), 'webdata-restart-'));
  env = await startTestTemporal();
  site = await startSlowSite({ host: SITE_HOST, pages: 20, delayMs: 1_500 });
  allowPrivateHosts(site.url);
  store = new FilesystemStore({ root: join(dir, 'store') });
  // Generous deadlines: that server renders each page in Chromium, slow on a busy 2-core machine.
  api = new WebDataClient({ apiKey: 'compat-key', baseUrl: server.url, timeoutMs: 60_000 });
  const workerApi = new WebDataClient({ apiKey: 'compat-key', baseUrl: server.url, timeoutMs: 300_000 });
  worker = await createWebDataWorker({ connection: env.nativeConnection, taskQueue: TASK_QUEUE, client: workerApi, store });
  workerRun = worker.run();
});

after(async () => {
  worker?.shutdown();
  await workerRun?.catch(() => undefined);
  await api?.close();
  await store?.close();
  await site?.close();
  await env?.teardown();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(300)) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

type JobKind = 'crawl' | 'batch';
interface JobRead { http: number; status?: string; completed?: number; total?: number; creditsUsed?: number }

/** The job as the server answers it now (its HTTP status too: 404 once it is lost). */
async function readJob(kind: JobKind, jobId: string): Promise<JobRead> {
  try {
    const answer = await fetch(`${server.url}/v2/${kind === 'crawl' ? 'crawl' : 'batch/scrape'}/${jobId}`, { signal: AbortSignal.timeout(30_000) });
    const body = (await answer.json().catch(() => ({}))) as { status?: string; completed?: number; total?: number; creditsUsed?: number };
    return { http: answer.status, status: body.status, completed: body.completed, total: body.total, creditsUsed: body.creditsUsed };
  } catch {
    return { http: 0 }; // the API is down
  }
}

/**
 * Watches the original job on the server and the run's progress from the kill on: the server's
 * answers each time they change, when the stage first reported the job stalled or recovered.
 */
function watch(kind: JobKind, jobId: string, runId: string, stage: JobKind, killedAt: number) {
  const server: Array<JobRead & { t: number }> = [];
  const declared: { stalledAtMs?: number; recoveredAtMs?: number; stalled?: unknown; recovered?: unknown } = {};
  let lastProgress: unknown;
  let running = true;
  const jobLoop = (async () => {
    while (running) {
      const read = await readJob(kind, jobId);
      const last = server.at(-1);
      if (!last || last.http !== read.http || last.status !== read.status || last.completed !== read.completed || last.total !== read.total) {
        server.push({ t: Date.now() - killedAt, ...read });
      }
      await sleep(2_000);
    }
  })();
  const runLoop = (async () => {
    while (running) {
      const progress = await getProgress(env.client, runId).catch(() => undefined);
      const r = progress?.stages[stage] as (StageReport & { stalled?: unknown }) | undefined;
      if (progress) lastProgress = { stage: progress.stage, status: progress.status, stages: progress.stages, jobs: progress.jobs };
      if (r?.stalled && declared.stalledAtMs === undefined) {
        declared.stalledAtMs = Date.now() - killedAt;
        declared.stalled = r.stalled;
      }
      if (r?.recovered && declared.recoveredAtMs === undefined) {
        declared.recoveredAtMs = Date.now() - killedAt;
        declared.recovered = r.recovered;
      }
      await sleep(1_000);
    }
  })();
  return {
    server,
    declared,
    lastProgress: () => lastProgress,
    async stop() {
      running = false;
      await Promise.all([jobLoop, runLoop]);
    },
  };
}

/** The result, or undefined when the run has not ended by the deadline (then it is terminated). */
async function resultBy(runId: string, deadline: number): Promise<PipelineResult | undefined> {
  const handle = env.client.workflow.getHandle(runId);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now())); });
  try {
    const result = await Promise.race([handle.result() as Promise<PipelineResult>, late]);
    if (result === undefined) await handle.terminate('restart test: no end by its deadline').catch(() => undefined);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

interface Scenario {
  name: string;
  input: PipelineInput;
  stage: JobKind;
  /** Pages the server reports done for the job when it is killed. */
  killAfter: number;
  parts: OssPart[];
  /** What the stage must report about the original job. */
  expect: 'stalled' | 'lost';
}

function withStall(input: PipelineInput): PipelineInput {
  return WITHOUT_STALL ? input : ({ ...input, stallAfterMs: STALL_MS } as PipelineInput);
}

async function runScenario(t: TestContext, s: Scenario): Promise<void> {
  const runId = `restart-${s.name}-${Date.now()}`;
  const kind = s.stage;
  const handle = await startPipeline(env.client, withStall(s.input), { taskQueue: TASK_QUEUE, workflowId: runId });
  const jobId = await until(`the ${kind} job to start`, async () => (await getProgress(env.client, runId)).jobs[`${s.stage}#1`], 300_000);
  // That server lists a running job's pages only when it ends (it ignores skip): the store has
  // none of them yet, so the kill comes when the server reports `killAfter` pages done.
  const beforeKill = await until(`job ${jobId} to report ${s.killAfter} pages done`, async () => {
    const read = await readJob(kind, jobId);
    return read.http === 200 && (read.completed ?? 0) >= s.killAfter ? read : undefined;
  }, 300_000);
  const storedBefore = (await store.count(runId, { jobId })).documents;

  const killedAt = Date.now();
  const watching = watch(kind, jobId, runId, s.stage, killedAt);
  const killed = await killParts(server, s.parts);
  // The pages were slow only so that the job was surely running at the kill: the recovery need not wait on them.
  site.delayMs = AFTER_KILL_DELAY_MS;
  await sleep(RESTART_PAUSE_MS);
  const restarted = await startParts(server, s.parts);
  const restartTookMs = Date.now() - killedAt;
  const result = await resultBy(runId, killedAt + STALL_MS + END_BOUND_MS);
  const endedAt = Date.now();
  await watching.stop();
  void handle;

  // The store, by job and by kind.
  const stored: Array<{ url: string; kind: string; jobId: string }> = [];
  for await (const doc of store.readDocuments(runId)) if (doc.kind === 'crawl' || doc.kind === 'batch') stored.push({ url: doc.url, kind: doc.kind, jobId: doc.jobId });
  const storedBy = (key: 'kind' | 'jobId', value: string) => stored.filter((d) => d[key] === value).length;
  const urls = stored.map((d) => d.url);
  const twice = [...new Set(urls.filter((u, i) => urls.indexOf(u) !== i))];
  const jobs = result?.jobs ?? ((watching.lastProgress() as { jobs?: Record<string, string> } | undefined)?.jobs ?? {});
  // Each job's own creditsUsed as the server answers it now (a lost job: 404).
  const jobFigures: Record<string, JobRead & { jobId: string; stored: number }> = {};
  for (const [name, id] of Object.entries(jobs)) {
    const jobKind = name.startsWith('batch') ? 'batch' : 'crawl';
    jobFigures[name] = { jobId: id, stored: storedBy('jobId', id), ...(await readJob(jobKind, id)) };
  }
  const after = watching.server;
  const resumed = after.find((r) => r.http === 200 && (r.completed ?? 0) > (beforeKill.completed ?? 0));
  const stageReport = result?.stages[s.stage] as (StageReport & { stalled?: unknown }) | undefined;
  const fetchedAgain = [...site.fetches()].filter(([, n]) => n > 1).map(([path, n]) => `${path} ×${n}`);

  const figures = {
    runId,
    jobId,
    killed: s.parts,
    stallAfterMs: WITHOUT_STALL ? null : STALL_MS,
    lastProgressBeforeKill: { ...beforeKill, storedPages: storedBefore },
    restartTookMs,
    server: {
      answers: after,
      resumedAfterMs: resumed?.t ?? null,
      last: after.at(-1) ?? null,
      notFound: after.some((r) => r.http === 404),
    },
    declared: watching.declared,
    ended: result !== undefined,
    killToEndMs: result ? endedAt - killedAt : null,
    status: result?.status ?? `not ended ${STALL_MS + END_BOUND_MS} ms after the kill`,
    stage: stageReport ?? (watching.lastProgress() as { stages?: Record<string, unknown> } | undefined)?.stages?.[s.stage] ?? null,
    pagesRecovered: stageReport?.recovered?.pages ?? null,
    pagesStored: stored.length,
    storedTwice: twice,
    fetchedMoreThanOnce: fetchedAgain,
    firstJobStoredPaths: stored.filter((d) => d.jobId === jobId).map((d) => new URL(d.url).pathname),
    documents: { run: result?.documents ?? null, crawl: result?.stages.crawl?.documents ?? null, batch: result?.stages.batch?.documents ?? null, storeCrawl: storedBy('kind', 'crawl'), storeBatch: storedBy('kind', 'batch') },
    credits: result ? { spent: result.credits.spent, byStage: result.credits.byStage, estimated: result.credits.estimated ?? [] } : null,
    jobs: jobFigures,
    kill: killed,
    restart: restarted,
    lastProgress: result ? undefined : watching.lastProgress(),
  };
  report[s.name] = figures;
  mkdirSync(join(REPORT_FILE, '..'), { recursive: true });
  writeFileSync(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
  t.diagnostic(`${s.name}: job ${jobId} at ${beforeKill.completed}/${beforeKill.total} (${storedBefore} stored) when killed; ` +
    `server after the restart: ${after.map((r) => `${(r.t / 1000).toFixed(0)}s ${r.http === 200 ? `${r.status} ${r.completed}/${r.total}` : r.http || 'down'}`).join(', ')}`);
  t.diagnostic(`${s.name}: stalled declared ${fmt(watching.declared.stalledAtMs)}, recovered ${fmt(watching.declared.recoveredAtMs)} after the kill; ` +
    `run ${figures.status} ${result ? `${fmt(figures.killToEndMs ?? undefined)} after the kill` : ''}; pages recovered ${figures.pagesRecovered ?? '-'}, stored ${stored.length}, stored twice ${twice.length}, fetched more than once ${fetchedAgain.length}`);

  // Every assertion is checked, then all that failed are reported together.
  const failed: string[] = [];
  const check = (ok: boolean, what: string) => { if (!ok) failed.push(what); };
  check(result !== undefined, `the run did not end within ${STALL_MS + END_BOUND_MS} ms after the kill (${JSON.stringify(watching.lastProgress())})`);
  if (result) {
    const reason = Object.entries(result.stages).filter(([, r]) => r?.reason).map(([stage, r]) => `${stage}: ${r?.reason}`);
    check(result.status === 'completed' || (result.status === 'partial' && reason.length > 0), `the run ended ${result.status}${reason.length ? ` (${reason.join('; ')})` : ' with no reason stated'}`);
    check(twice.length === 0, `stored twice: ${twice.join(', ')}`);
    check(result.stages.crawl?.documents === undefined || result.stages.crawl.documents === storedBy('kind', 'crawl') || result.stages.crawl.status === 'skipped',
      `the crawl stage counts ${result.stages.crawl?.documents} documents, the store holds ${storedBy('kind', 'crawl')}`);
    check(result.stages.batch?.documents === undefined || result.stages.batch.documents === storedBy('kind', 'batch') || result.stages.batch.status === 'skipped',
      `the batch stage counts ${result.stages.batch?.documents} documents, the store holds ${storedBy('kind', 'batch')}`);
    check(result.documents === stored.length, `the run counts ${result.documents} documents, the store holds ${stored.length}`);
    // Credits: each job's own creditsUsed where the server still answers; a lost job's estimate labelled.
    for (const stage of ['crawl', 'batch'] as const) {
      const own = Object.entries(jobFigures).filter(([name]) => name.startsWith(`${stage}#`));
      const lost = own.filter(([, j]) => j.http === 404);
      // Each job's creditsUsed as the server last answered the run (from its history): a stalled
      // job the server goes on scraping after the cancel bills more later, which no run can
      // count before it happens; the difference with the server's answer now is reported.
      let answered = 0;
      let now = 0;
      for (const [, j] of own.filter(([, f]) => f.http === 200)) {
        answered += await answeredCredits(env.client, runId, j.jobId);
        now += Math.max(0, j.creditsUsed ?? 0);
      }
      (figures as Record<string, unknown>)[`${stage}CreditsBilledAfterTheRunsLastRead`] = now - answered;
      const spent = result.credits.byStage[stage] ?? 0;
      if (lost.length === 0) {
        check(spent === answered, `${stage}: the run counts ${spent} credits, the jobs' creditsUsed as last answered to the run add up to ${answered} (${now} now)`);
        continue;
      }
      const estimate = spent - answered;
      // lost-job.ts: the larger of its stored pages' price (1 a page here) and the last creditsUsed
      // the server answered the run for it (from the run's history).
      let expected = 0;
      for (const [, j] of lost) expected += Math.max(j.stored, await answeredCredits(env.client, runId, j.jobId));
      check(estimate === expected, `${stage}: the lost jobs' estimate is ${estimate} credits, expected ${expected} (each: the larger of its stored pages and the last creditsUsed answered to the run; the server read ${beforeKill.creditsUsed} before the kill)`);
      for (const [, j] of lost) {
        check((result.credits.estimated ?? []).some((line) => line.includes(j.jobId)), `${stage}: lost job ${j.jobId}'s estimate is not labelled in credits.estimated`);
      }
    }
    // What the stalled or lost job stored is left out of the recovery: none of it fetched twice.
    const firstJobPaths = stored.filter((d) => d.jobId === jobId).map((d) => new URL(d.url).pathname);
    const storedAndFetchedAgain = firstJobPaths.filter((p) => (site.fetches().get(p) ?? 0) > 1);
    check(storedAndFetchedAgain.length === 0, `pages job ${jobId} stored were fetched again: ${storedAndFetchedAgain.join(', ')}`);
    if (s.expect === 'stalled') {
      const stalled = stageReport?.stalled as { jobId?: string } | undefined;
      check(stalled?.jobId === jobId, `the ${s.stage} stage does not report job ${jobId} stalled (stalled: ${JSON.stringify(stalled)})`);
    } else {
      check(figures.server.notFound, `the server never answered 404 for job ${jobId} after Redis was restarted`);
      check(stageReport?.recovered?.lostJob === jobId, `the ${s.stage} stage does not report job ${jobId} lost and recovered (recovered: ${JSON.stringify(stageReport?.recovered)})`);
    }
  }
  writeFileSync(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
  assert.deepEqual(failed, [], `${s.name}: figures in ${REPORT_FILE}`);
}

const fmt = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);

const crawlInput = (): PipelineInput => ({
  url: `${site.url}/`,
  select: { include: ['^/p/'] },
  // One page at a time, 1 s apart: the crawl is surely running when the server is killed.
  crawl: { delay: 1 },
  stages: { interact: false },
});

test('a. API and queue worker killed mid-crawl, Redis kept: the run ends, each page stored once, figures equal the store', async (t) => {
  site.delayMs = 1_500;
  site.resetFetches();
  await runScenario(t, { name: 'crawl-redis-kept', input: crawlInput(), stage: 'crawl', killAfter: 4, parts: ['api', 'worker'], expect: 'stalled' });
});

test('b. API, queue worker and Redis killed mid-crawl (the job lost: 404): the run ends, each page stored once, figures equal the store', async (t) => {
  site.delayMs = 1_500;
  site.resetFetches();
  await runScenario(t, { name: 'crawl-redis-lost', input: crawlInput(), stage: 'crawl', killAfter: 4, parts: ['redis', 'api', 'worker'], expect: 'lost' });
});

test('c. API and queue worker killed mid-batch, Redis kept: the run ends, each page stored once, figures equal the store', async (t) => {
  // The server scrapes a batch 8 pages at a time: slow pages keep it running past the first ones.
  site.delayMs = 6_000;
  site.resetFetches();
  await runScenario(t, {
    name: 'batch-redis-kept',
    input: { url: `${site.url}/`, mode: 'batch', select: { include: ['^/p/'] }, stages: { interact: false } },
    stage: 'batch',
    killAfter: 1,
    parts: ['api', 'worker'],
    expect: 'stalled',
  });
});
