// Chaos scenario 4: the worker is SIGKILLed while its interact code runs in a browser session,
// leaving the session orphaned; a restarted worker retries the step, and the workflow's
// cleanup (or the session's ttl) stops the session, which is billed exactly once.
// Compared with a clean run of the same input. Run with `npm run test:chaos`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebDataClient } from '../../packages/client/src/client.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { browserCredits } from '../../packages/service/src/billing/prices.js';
import { browserSessions } from '../../packages/service/src/browser/session-manager.js';
import { quietTemporalLogs } from '../helpers/temporal.js';
import {
  chaosProfile, prebuiltWorkflowBundle, spawnWorker, startRecordingService, startTemporalServer, TEST_KEY, waitFor, WORKER_KEY,
  type LedgerEntry, type RecordingService, type TemporalServer, type WorkerProcess,
} from './harness.js';
import { eventIdentity, eventMs, historyFigures, recordScenario, seconds } from './report.js';

const profile = chaosProfile();
const TASK_QUEUE = 'chaos-interact';
const CODE_MS = 5_000;

let dir: string;
let temporal: TemporalServer;
let service: RecordingService;
let api: WebDataClient;
let store: FilesystemStore;
let bundlePath: string;
let worker: WorkerProcess | undefined;

before(async () => {
  quietTemporalLogs();
  dir = mkdtempSync(join(tmpdir(), 'webdata-chaos-interact-'));
  temporal = await startTemporalServer({ dbFilename: join(dir, 'temporal.db') });
  service = await startRecordingService({ sitePages: 60 });
  api = new WebDataClient({ apiKey: TEST_KEY, baseUrl: service.url });
  store = new FilesystemStore({ root: join(dir, 'store') });
  bundlePath = await prebuiltWorkflowBundle(dir);
  worker = await startWorker();
});

after(async () => {
  await worker?.kill('SIGKILL');
  await api?.close();
  await store?.close();
  await service?.close();
  await temporal?.close();
  if (dir && process.env.CHAOS_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
});

async function startWorker(): Promise<WorkerProcess> {
  const w = spawnWorker({ temporalAddress: temporal.address, serviceUrl: service.url, apiKey: WORKER_KEY, store: join(dir, 'store'), taskQueue: TASK_QUEUE, bundlePath });
  await w.ready;
  return w;
}

const input = (): PipelineInput => ({
  url: `${service.siteUrl}/shop/catalog`,
  stages: { map: false, select: false, batch: false },
  crawl: { limit: 1 },
  interact: {
    match: '/shop/catalog',
    code: `await page.waitForTimeout(${CODE_MS}); await page.$$eval('#catalog-items li', (li) => li.length)`,
    maxPages: 1,
    timeout: 60,
  },
});

interface InteractRun {
  id: string;
  result: PipelineResult;
  urls: string[];
  ledger: LedgerEntry[];
  scrapeId: string;
  durationMs: number;
}

async function run(name: string, during?: (workflowId: string) => Promise<void>): Promise<InteractRun> {
  const ledgerFrom = service.ledger.length;
  const started = Date.now();
  const handle = await startPipeline(temporal.client, input(), { taskQueue: TASK_QUEUE, workflowId: `chaos-${name}-${Date.now()}` });
  const resultP = handle.result();
  resultP.catch(() => undefined);
  if (during) await during(handle.workflowId);
  const result = await resultP;
  const urls: string[] = [];
  for await (const doc of store.readDocuments(handle.workflowId)) urls.push(`${doc.kind} ${doc.url}`);
  const ledger = service.ledger.slice(ledgerFrom);
  const scrapeId = ledger.find((e) => e.reason === 'scrape')?.jobId ?? '';
  return { id: handle.workflowId, result, urls: urls.sort(), ledger, scrapeId, durationMs: Date.now() - started };
}

const sum = (entries: LedgerEntry[]) => Math.round(entries.reduce((n, e) => n + e.credits, 0) * 100) / 100;

let clean: InteractRun | undefined;

test('4. a browser session orphaned by a killed worker is stopped and billed once', { timeout: profile.scenarioTimeoutMs }, async () => {
  const manager = browserSessions(service.app.context);
  clean = await run('interact-clean');
  assert.equal(clean.result.status, 'completed', JSON.stringify(clean.result.stages));
  assert.equal(clean.result.stages.interact?.documents, 1);

  let killedAt = 0;
  let sessionId = '';
  const chaos = await run('interact-kill', async (workflowId) => {
    // Kill while the code runs: a session is open and the worker's interact call is in flight.
    // The signal goes out in the same tick as that check (no I/O in between), so the call cannot
    // have been answered first, however slow the machine.
    const w = worker;
    await waitFor(() => {
      const active = manager.list('local', 'interact', 'active');
      const calling = service.inFlight(WORKER_KEY).includes('POST /v2/scrape/:jobId/interact');
      if (active.length !== 1 || !calling) return false;
      sessionId = active[0].id;
      killedAt = Date.now();
      w?.child.kill('SIGKILL');
      return true;
    }, 120_000, `an interact call in flight in ${workflowId}`, 50);
    await w?.kill('SIGKILL');
    assert.equal(manager.get(sessionId)?.status, 'active', 'the session did not outlive the worker');
    worker = await startWorker();
  });

  const session = manager.get(sessionId);
  const history = await temporal.client.workflow.getHandle(chaos.id).fetchHistory();
  const h = historyFigures(history);
  const resumed = (history.events ?? []).find((e) => eventMs(e) > killedAt && eventIdentity(e)?.startsWith(`${worker?.child.pid}@`));
  const sessionCharges = chaos.ledger.filter((e) => e.reason === 'interact session');
  const interactActivity = (await api.listActivity({ endpoint: 'interact', limit: 100 })).data.filter((e) => e.id === chaos.scrapeId);
  const cleanSession = clean.ledger.filter((e) => e.reason === 'interact session');
  const stopped = chaos.result.stages.interact?.credits;
  const duration = session?.end?.sessionDurationMs ?? 0;

  recordScenario(profile.name, '4-interact', {
    scenario: '4. orphaned browser session',
    injected: `worker SIGKILLed while its interact call (${seconds(CODE_MS)} of code) was in flight, restarted`,
    outcome: [
      chaos.result.status,
      chaos.urls.join() === clean.urls.join() ? 'same stored documents as clean' : 'stored documents DIFFER',
      `session ended by ${session?.end?.reason === 'stopped' ? 'the workflow cleanup (DELETE)' : session?.end?.reason ?? '?'}`,
      `billed ${sessionCharges.length} time(s)`,
    ].join('; '),
    figures: {
      'session lifetime': `${seconds(duration)} (clean ${seconds(manager.list('local', 'interact', 'destroyed').find((s) => s.jobId === clean?.scrapeId)?.end?.sessionDurationMs ?? 0)})`,
      'session charges': `${sessionCharges.map((e) => e.credits).join(', ')} credits (clean ${cleanSession.map((e) => e.credits).join(', ')})`,
      'interact sessions opened': interactActivity.length,
      'activity retries': `${h.retries} (${Object.entries(h.retriedByType).map(([t, n]) => `${t} ${n}`).join(', ')})`,
      'time to resume': resumed ? seconds(eventMs(resumed) - killedAt) : '-',
      credits: `${sum(chaos.ledger)} (clean ${sum(clean.ledger)})`,
      duration: `${seconds(chaos.durationMs)} (clean ${seconds(clean.durationMs)})`,
    },
  });

  assert.equal(chaos.result.status, 'completed', JSON.stringify(chaos.result.stages));
  assert.equal(chaos.result.stages.interact?.status, 'completed');
  assert.deepEqual(chaos.urls, clean.urls, 'stored documents differ from the clean run');
  assert.ok(h.retries > 0, 'the interact step was not retried');
  // The orphan was stopped (by the cleanup's DELETE, or by its ttl), and nothing is left open.
  assert.equal(session?.status, 'destroyed');
  assert.ok(['stopped', 'ttl expired', 'inactive'].includes(String(session?.end?.reason)), session?.end?.reason);
  assert.deepEqual(manager.list('local', 'interact', 'active').map((s) => s.id), []);
  // Billed once, for the session's whole life, at the service's own price; one session opened.
  assert.equal(sessionCharges.length, 1, JSON.stringify(sessionCharges));
  assert.equal(sessionCharges[0].jobId, chaos.scrapeId);
  assert.equal(sessionCharges[0].credits, browserCredits(duration));
  assert.equal(interactActivity.length, 1);
  assert.equal(stopped, sum(chaos.ledger.filter((e) => e.reason !== 'crawl')), 'the run reports what the service billed for the interact stage');
  // Everything else costs what the clean run cost.
  const other = (entries: LedgerEntry[]) => sum(entries.filter((e) => e.reason !== 'interact session'));
  assert.equal(other(chaos.ledger), other(clean.ledger));
  assert.equal(chaos.ledger.filter((e) => e.reason === 'scrape').length, 1, 'the page was scraped twice for interact');
});
