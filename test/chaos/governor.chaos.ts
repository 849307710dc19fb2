// Chaos scenario 5 (issue 23, item 6): the worker that hosts the fleet governor is SIGKILLed while
// leases are held. A small version of the tenants workload (bench/tenants.ts) on one API team of
// concurrency 4: tenant A starts a few larger governed runs, then several small tenants one small
// run each, all with `governor: {}` (the team's concurrency from GET /v2/team/queue-status). The
// workload runs twice on the same stack: clean, then with the kill. The kill waits for the event
// (a governed batch job starts and the governor's own query shows held leases, a small tenant
// among the holders or in line), a new worker starts at once, and the governor's state is
// replayed from its history. Checked: every run
// completes within the scenario's bound, no share leaked (0 in use and no one in line at the end,
// read from the governor's query), every page stored exactly once (store documents against the
// pages each run selected) and the credits billed equal the clean workload's.
// Run with `npm run test:chaos` (CHAOS_PROFILE=ci for the short profile). Not part of `npm test`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebDataClient } from '../../packages/client/src/client.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { governorStatus, type GovernorStatus } from '../../src/coordination/team-governor.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { quietTemporalLogs } from '../helpers/temporal.js';
import {
  chaosProfile, chaosTeam, prebuiltWorkflowBundle, spawnWorker, startRecordingService, startTemporalServer, waitFor,
  WORKER_KEY, type RecordingService, type TemporalServer, type WorkerProcess,
} from './harness.js';
import { recordScenario, seconds } from './report.js';

const profile = chaosProfile();
const TASK_QUEUE = 'chaos-governor';
const TEAM_CONCURRENCY = 4;
// Small enough for a couple of minutes on a busy 2-core machine (both workloads together).
const SIZES = profile.name === 'full'
  ? { bigRuns: 3, bigPages: 60, smallTenants: 5, smallPages: 6, chunkPages: 15, sitePages: 120 }
  : { bigRuns: 3, bigPages: 40, smallTenants: 4, smallPages: 5, chunkPages: 10, sitePages: 80 };
const SMALL = Array.from({ length: SIZES.smallTenants }, (_, i) => `tenant-${String.fromCharCode(66 + i)}`);
// Every wait has a bound well above what the workload needs even under CPU stress.
const WAIT_MS = 5 * 60_000;

let dir: string;
let temporal: TemporalServer;
let service: RecordingService;
let store: FilesystemStore;
let bundlePath: string;
let team: string;
let worker: WorkerProcess | undefined;
const workerLog: string[] = [];

before(async () => {
  quietTemporalLogs();
  dir = mkdtempSync(join(tmpdir(), 'webdata-chaos-governor-'));
  temporal = await startTemporalServer({ dbFilename: join(dir, 'temporal.db') });
  service = await startRecordingService({ sitePages: SIZES.sitePages, teams: [chaosTeam({ concurrency: TEAM_CONCURRENCY })] });
  store = new FilesystemStore({ root: join(dir, 'store') });
  bundlePath = await prebuiltWorkflowBundle(dir);
  // The governor's id is the hash of the service URL and the worker's key (WebDataClient.teamId).
  const asWorker = new WebDataClient({ apiKey: WORKER_KEY, baseUrl: service.url });
  team = asWorker.teamId;
  await asWorker.close();
  worker = await startWorker();
});

after(async () => {
  await worker?.kill('SIGKILL');
  await store?.close();
  await service?.close();
  await temporal?.close();
  if (dir && process.env.CHAOS_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
});

async function startWorker(): Promise<WorkerProcess> {
  const w = spawnWorker({ temporalAddress: temporal.address, serviceUrl: service.url, apiKey: WORKER_KEY, store: join(dir, 'store'), taskQueue: TASK_QUEUE, bundlePath }, workerLog);
  await w.ready;
  return w;
}

const input = (tenant: string, pages: number): PipelineInput => ({
  url: `${service.siteUrl}/`,
  mode: 'batch',
  tenant,
  select: { limit: pages },
  // No cache: both workloads fetch every page, so their credits compare.
  map: { ignoreCache: true },
  batch: { scrapeOptions: { maxAge: 0 } },
  stages: { interact: false, support: false },
  governor: { chunkPages: SIZES.chunkPages },
});

interface RunOutcome {
  role: string;
  tenant: string;
  pages: number;
  workflowId: string;
  result: PipelineResult;
  urls: string[];
  ms: number;
}

interface Workload {
  runs: RunOutcome[];
  charged: number;
  wallMs: number;
  /** The governor's state at the kill (undefined for the clean workload). */
  atKill?: GovernorStatus;
  /** From the kill to the new worker's start line. */
  restartMs?: number;
  end: GovernorStatus | null;
}

const current = async () => governorStatus(temporal.client, team);

/** A's runs first; once A holds a share, the small tenants; `onLine` runs at a batch start while leases are held. */
async function runWorkload(tag: string, onLine?: (status: GovernorStatus) => Promise<void>): Promise<Workload> {
  const ledgerFrom = service.ledger.length;
  const t0 = Date.now();
  const stamp = `${tag}-${Date.now()}`;
  const launched: Array<Promise<RunOutcome>> = [];
  const launch = async (role: string, tenant: string, pages: number) => {
    const workflowId = `chaos-gov-${stamp}-${role}`;
    const started = Date.now();
    const handle = await startPipeline(temporal.client, input(tenant, pages), { taskQueue: TASK_QUEUE, workflowId });
    launched.push(handle.result().then(async (result) => {
      const ms = Date.now() - started;
      const urls: string[] = [];
      for await (const doc of store.readDocuments(workflowId)) if (doc.kind === 'batch') urls.push(doc.url);
      return { role, tenant, pages, workflowId, result, urls, ms };
    }));
  };
  for (let i = 1; i <= SIZES.bigRuns; i++) await launch(`A${i}`, 'tenant-A', SIZES.bigPages);
  await waitFor(async () => ((await current())?.tenants.find((t) => t.tenant === 'tenant-A')?.held ?? 0) > 0, WAIT_MS, 'tenant A holding a share');
  // Each batch job start the worker sends is a moment its run holds a lease (asked before the
  // start, given back after the job ends and is collected): the kill waits for one of them at which
  // the governor's query shows leases held with a small tenant among the holders or in line.
  let starts = 0;
  const unsubscribe = service.onArrival((a) => {
    if (a.key === WORKER_KEY && a.route === 'POST /v2/batch/scrape') starts += 1;
  });
  try {
    for (const tenant of SMALL) await launch(tenant, tenant, SIZES.smallPages);
    if (onLine) {
      let seen = 0;
      let chosen: GovernorStatus | undefined;
      while (!chosen) {
        await waitFor(() => starts > seen, WAIT_MS, 'a governed batch job start while leases are held', 50);
        seen = starts;
        const s = await current();
        if (s && s.inUse > 0 && s.tenants.some((t) => SMALL.includes(t.tenant))) chosen = s;
      }
      await onLine(chosen);
    }
  } finally {
    unsubscribe();
  }
  const runs = await Promise.all(launched);
  const wallMs = Date.now() - t0;
  // Releases are the runs' last activities: wait for the governor to show them (bounded).
  await waitFor(async () => (await current())?.inUse === 0, WAIT_MS, 'every share back');
  const charged = Math.round(service.ledger.slice(ledgerFrom).reduce((n, e) => n + e.credits, 0) * 100) / 100;
  return { runs, charged, wallMs, end: await current() };
}

function tenantsLine(s: GovernorStatus | undefined | null): string {
  if (!s) return 'none';
  return s.tenants.map((t) => `${t.tenant} ${t.held}/${t.leases}L/${t.waiting}W`).join(', ');
}

function assertWorkload(w: Workload, what: string): void {
  for (const r of w.runs) {
    assert.equal(r.result.status, 'completed', `${what} ${r.role}: ${JSON.stringify(r.result.stages)}`);
    assert.equal(new Set(r.urls).size, r.urls.length, `${what} ${r.role}: a page was stored twice`);
    assert.equal(r.urls.length, r.pages, `${what} ${r.role}: ${r.urls.length} pages stored, ${r.pages} selected`);
    assert.equal(r.result.stages.batch?.documents, r.pages, `${what} ${r.role}: batch documents`);
  }
  assert.equal(w.end?.inUse, 0, `${what}: shares still held at the end: ${JSON.stringify(w.end)}`);
  assert.deepEqual(w.end?.tenants, [], `${what}: tenants still holding or waiting at the end`);
}

let clean: Workload | undefined;

test('5a. governed tenants workload, clean (the reference)', { timeout: profile.scenarioTimeoutMs }, async () => {
  clean = await runWorkload('clean');
  assertWorkload(clean, 'clean');
  assert.equal(clean.end?.concurrency, TEAM_CONCURRENCY, 'the governor asked GET /v2/team/queue-status');
});

test('5. worker hosting the fleet governor SIGKILLed while leases are held', { timeout: profile.scenarioTimeoutMs }, async () => {
  assert.ok(clean, 'the clean workload did not complete');
  const killed: Workload = await (async () => {
    let atKill: GovernorStatus | undefined;
    let restartMs = 0;
    const w = await runWorkload('kill', async (status) => {
      atKill = status;
      const before = Date.now();
      await worker?.kill('SIGKILL');
      worker = await startWorker();
      restartMs = Date.now() - before;
    });
    return { ...w, atKill, restartMs };
  })();

  const pages = (w: Workload) => w.runs.reduce((n, r) => n + r.urls.length, 0);
  const small = killed.runs.filter((r) => r.tenant !== 'tenant-A').map((r) => r.ms);
  const big = killed.runs.filter((r) => r.tenant === 'tenant-A').map((r) => r.ms);
  const ok = killed.runs.every((r) => r.result.status === 'completed' && r.urls.length === r.pages && new Set(r.urls).size === r.urls.length);
  recordScenario(profile.name, '5-governor', {
    scenario: '5. worker hosting the fleet governor SIGKILLed',
    injected: `1 SIGKILL of the only worker (the governor's and every run's) while the governor showed ${killed.atKill?.inUse ?? '?'} of ${killed.atKill?.capacity ?? '?'} slots held (${tenantsLine(killed.atKill)}); a new worker started at once; team concurrency ${TEAM_CONCURRENCY}, tenant A ${SIZES.bigRuns} runs of ${SIZES.bigPages} pages, ${SIZES.smallTenants} small tenants ${SIZES.smallPages} pages each, chunks of ${SIZES.chunkPages}`,
    outcome: [
      ok ? `all ${killed.runs.length} runs completed, each page stored once` : 'a run FAILED or stored wrong pages',
      killed.end?.inUse === 0 && killed.end.tenants.length === 0 ? 'no share leaked (0 held, none in line at the end)' : `shares LEAKED: ${JSON.stringify(killed.end)}`,
      killed.charged === clean.charged ? 'same credits as clean' : `credits ${killed.charged} vs ${clean.charged}`,
    ].join('; '),
    figures: {
      'runs': killed.runs.length,
      'pages stored (clean / kill)': `${pages(clean)} / ${pages(killed)}`,
      'credits (clean / kill)': `${clean.charged} / ${killed.charged}`,
      'held at kill': `${killed.atKill?.inUse ?? '?'} of ${killed.atKill?.capacity ?? '?'} (team ${TEAM_CONCURRENCY})`,
      'held at end': killed.end?.inUse ?? '?',
      'leases expired (governor timer)': killed.end?.expired ?? '?',
      'worker restart': seconds(killed.restartMs ?? 0),
      'wall (clean / kill)': `${seconds(clean.wallMs)} / ${seconds(killed.wallMs)}`,
      'A runs max (kill)': seconds(Math.max(...big)),
      'small runs max (kill)': seconds(Math.max(...small)),
    },
  });

  assert.ok((killed.atKill?.inUse ?? 0) > 0, `no lease held at the kill: ${JSON.stringify(killed.atKill)}`);
  assertWorkload(killed, 'after the kill');
  assert.equal(pages(killed), pages(clean));
  for (const r of killed.runs) {
    const ref: RunOutcome | undefined = clean.runs.find((c) => c.role === r.role);
    assert.deepEqual([...r.urls].sort(), [...(ref?.urls ?? [])].sort(), `${r.role}: stored URL set differs from the clean workload`);
    assert.equal(r.result.credits.spent, ref?.result.credits.spent, `${r.role}: credits spent per the workflow`);
  }
  assert.equal(killed.charged, clean.charged, `the service charged ${killed.charged} credits, the clean workload ${clean.charged}`);
});
