// Upgrading a running fleet from 0.x to 1.0 (which drops the 0.x patches) with worker versioning,
// as docs/operations.md ("Upgrade safely") and the CHANGELOG tell a deployment to: the workflows
// of the last 0.x commit run as deployment version `<name>:0.x`, runs start there and stop
// mid-run (a batch clamped by its budget, waiting for a raise); the current code starts as
// `<name>:1.0` and becomes current. The old runs finish on 0.x (pinned) and new ones run on
// 1.0, each page stored once, no workflow task failing. Both builds share this tree's activities:
// the major version changes workflow code only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Worker } from '@temporalio/worker';
import proto from '@temporalio/proto';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { getProgress, raiseBudget, startPipeline } from '../../src/client/pipeline.js';
import { setTenantBudget } from '../../src/client/tenants.js';
import { ledgerWorkflowId } from '../../src/shared/tenant-ledger-messages.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { LOCAL_JOB_STARTS } from '../../src/workflows/activities.js';
import { LIMIT_CUT_CREDITS_FROM_COLLECTOR } from '../../src/workflows/limit-cut.js';
import { createWebDataWorker } from '../../src/worker/worker.js';
import { RELEASE_0X, releaseWorkflowBundle } from '../helpers/release-bundle.js';
import { jobsStarted, startStack, storedUrls, TEST_POLLING } from '../helpers/stack.js';
import { pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const { EventType } = proto.temporal.api.enums.v1;

const DEPLOYMENT = 'webdata-upgrade';

/** Polls until `check` holds; the generous deadline only catches what never happens. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 250))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

let stack: DevStack;
let site: string;
const workers: Array<{ worker: Worker; running: Promise<void> }> = [];

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('upgrade from 0.x to 1.0', () => {
  before(async () => {
    // No stack worker: each build runs a worker of its own on the stack's task queue.
    stack = await startStack({ worker: false });
    site = stack.service.siteUrl as string;
  });

  after(async () => {
    for (const w of workers) w.worker.shutdown();
    await Promise.allSettled(workers.map((w) => w.running));
    await stack?.close();
  });

  async function startBuild(buildId: '0.x' | '1.0'): Promise<void> {
    // 0.x: its bundle from git, built once and cached (a minute of webpack on a busy machine).
    const workflowBundlePath = buildId === '0.x' ? await releaseWorkflowBundle(RELEASE_0X) : await pipelineWorkflowBundle();
    const worker = await createWebDataWorker({
      connection: stack.temporal.env.nativeConnection,
      namespace: stack.temporal.namespace,
      taskQueue: stack.taskQueue,
      client: stack.api,
      store: stack.store,
      metrics: false,
      workflowBundlePath,
      deployment: { deploymentName: DEPLOYMENT, buildId },
    });
    workers.push({ worker, running: worker.run() });
  }

  /** Makes `buildId` current (the server refuses it until the version's pollers have reached it). */
  async function setCurrent(buildId: string): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        await stack.temporal.client.workflowService.setWorkerDeploymentCurrentVersion({ namespace: stack.temporal.namespace, deploymentName: DEPLOYMENT, buildId, identity: 'upgrade.test' });
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  async function history(workflowId: string): Promise<HistoryEvent[]> {
    return (await stack.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  }

  /** The builds a run's workflow tasks completed on (each completion names its version). */
  function buildsOf(events: HistoryEvent[]): Set<string> {
    return new Set(events.filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? 'none'));
  }

  /** The ids of a run's patch markers (a local activity's marker is its record, not a patch). */
  const patchIds = (events: HistoryEvent[]): string[] => events
    .filter((e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED && e.markerRecordedEventAttributes?.markerName === 'core_patch')
    .map((e) => String((JSON.parse(Buffer.from(e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data ?? []).toString('utf8') || '{}') as { id?: string }).id));
  /** Patches of 1.x (asked by 1.0's code after the release retired 0.x's). */
  const ONE_X_PATCHES = new Set([LOCAL_JOB_STARTS, LIMIT_CUT_CREDITS_FROM_COLLECTOR]);
  const zeroXPatches = (events: HistoryEvent[]) => patchIds(events).filter((id) => !ONE_X_PATCHES.has(id));
  const failedTasks = (events: HistoryEvent[]) => events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);

  /** Clamped at 3 URLs by its budget (1 map credit of 4), the batch waits (10 min) for a raise. */
  const clamped = (tenant?: string): PipelineInput => ({
    url: `${site}/`,
    ...(tenant !== undefined ? { tenant } : {}),
    mode: 'batch',
    select: { include: ['^/docs'] },
    budget: { credits: 4, waitForRaiseMs: 600_000 },
    stages: { interact: false },
    polling: TEST_POLLING,
    webhookUrl: stack.webhook.url,
  });
  const crawlOnly = (): PipelineInput => ({
    url: `${site}/`,
    stages: { map: false, select: false, batch: false, interact: false },
    crawl: { limit: 5 },
    polling: TEST_POLLING,
    webhookUrl: stack.webhook.url,
  });

  async function startClamped(tag: string, i: number, tenant?: string): Promise<string> {
    const workflowId = `upgrade-${tag}-${i}-${Date.now()}`;
    await startPipeline(stack.temporal.client, clamped(tenant), { taskQueue: stack.taskQueue, workflowId });
    await until(`${workflowId}'s batch to be clamped`, async () =>
      (await getProgress(stack.temporal.client, workflowId).catch(() => undefined))?.credits.events.some((e) => e.startsWith('batch: URLs clamped')) === true);
    return workflowId;
  }

  async function crawlOnlyEvents(tag: string): Promise<HistoryEvent[]> {
    const workflowId = `upgrade-crawl-${tag}-${Date.now()}`;
    const handle = await startPipeline(stack.temporal.client, crawlOnly(), { taskQueue: stack.taskQueue, workflowId });
    assert.equal((await handle.result()).status, 'completed');
    return history(workflowId);
  }

  /** Raises the run's budget and checks what it stored: every selected page, once, in one batch job. */
  async function finish(workflowId: string, since: number): Promise<string[]> {
    await raiseBudget(stack.temporal.client, workflowId, 100);
    const result = await stack.temporal.client.workflow.getHandle(workflowId).result() as PipelineResult;
    assert.equal(result.status, 'completed', JSON.stringify(result.stages));
    const batch = result.stages.batch;
    const urls = batch?.urls ?? 0;
    assert.ok(urls > 3, `${workflowId}: the selection has more than the 3 URLs that fitted (${urls})`);
    assert.equal(result.jobs['batch+append#1'], batch?.jobId, JSON.stringify(result.jobs));
    const stored = await storedUrls(stack, result.runId, ['batch']);
    assert.equal(stored.length, urls, `${workflowId}: ${stored.length} pages stored for ${urls} URLs`);
    assert.equal(new Set(stored).size, urls, `${workflowId}: a page stored twice`);
    assert.ok((await jobsStarted(stack, 'batch_scrape', since)).includes(batch?.jobId as string));
    return stored;
  }

  test('runs started on 0.x finish there while 1.0 takes the new ones; each page stored once', async () => {
    const since = Date.now();
    const tenant = `upgrade-${Date.now()}`;
    await startBuild('0.x');
    await setCurrent('0.x');
    // The tenant's ledger starts on 0.x: a long-lived workflow (continue-as-new) that 1.0 takes over.
    await setTenantBudget(stack.temporal.client, tenant, 10_000, { taskQueue: stack.taskQueue });
    // Three crawl-only runs on each build, one after another: their sizes, for the record (a
    // run's timers and status reads depend on timing, its markers do not).
    const crawl0 = [await crawlOnlyEvents('0x'), await crawlOnlyEvents('0x'), await crawlOnlyEvents('0x')];
    const old = [await startClamped('old', 1, tenant), await startClamped('old', 2)];

    await startBuild('1.0');
    await setCurrent('1.0');
    const crawl1 = [await crawlOnlyEvents('1.0'), await crawlOnlyEvents('1.0'), await crawlOnlyEvents('1.0')];
    // Moved as docs/operations.md says (`temporal workflow update-options ... auto_upgrade`): its
    // next task runs on 1.0, which replays its 0.x history (the ledger's patch is kept deprecated).
    await stack.temporal.client.workflowService.updateWorkflowExecutionOptions({
      namespace: stack.temporal.namespace,
      workflowExecution: { workflowId: ledgerWorkflowId(tenant) },
      workflowExecutionOptions: { versioningOverride: { autoUpgrade: true } },
      updateMask: { paths: ['versioning_override'] },
    });
    await setTenantBudget(stack.temporal.client, tenant, 20_000, { taskQueue: stack.taskQueue });
    const fresh = [await startClamped('new', 1, tenant), await startClamped('new', 2)];

    // Woken now, while 1.0 is current: the old runs append their batches on 0.x, the new on 1.0.
    await Promise.all([...old, ...fresh].map((id) => finish(id, since)));

    for (const [ids, build] of [[old, '0.x'], [fresh, '1.0']] as const) {
      for (const id of ids) {
        const events = await history(id);
        assert.deepEqual([...buildsOf(events)], [build], `${id}: workflow tasks on ${[...buildsOf(events)].join(', ')}`);
        assert.deepEqual(failedTasks(events), [], `${id}: a workflow task failed (non-determinism?)`);
      }
    }
    const ledger = await history(ledgerWorkflowId(tenant));
    assert.deepEqual([...buildsOf(ledger)].sort(), ['0.x', '1.0'], 'the ledger ran on 0.x, then on 1.0');
    const lastTask = ledger.filter((e) => e.workflowTaskCompletedEventAttributes).at(-1);
    assert.equal(lastTask?.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId, '1.0', 'the ledger\'s last task on 1.0');
    assert.deepEqual(failedTasks(ledger), [], 'a ledger task failed on 1.0 (non-determinism?)');
    // 0.x records its patches' markers, 1.0 none of them (only those of 1.x's own changes): what
    // the major version saves each run.
    assert.ok(zeroXPatches(await history(old[0])).length > 0, '0.x recorded no patch marker');
    for (const id of fresh) assert.deepEqual(zeroXPatches(await history(id)), [], `${id}: a 0.x patch marker on 1.0`);
    for (const events of crawl1) assert.deepEqual(zeroXPatches(events), []);
    for (const events of crawl0) assert.deepEqual([...buildsOf(events)], ['0.x']);
    for (const events of crawl1) assert.deepEqual([...buildsOf(events)], ['1.0']);
    const kinds = (events: HistoryEvent[]) => Object.entries(events.reduce<Record<string, number>>((n, e) => {
      const kind = EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '').toLowerCase();
      n[kind] = (n[kind] ?? 0) + 1;
      return n;
    }, {})).map(([k, n]) => `${k} ${n}`).join(', ');
    for (const [build, runs] of [['0.x', crawl0], ['1.0', crawl1]] as const) {
      console.log(`upgrade: crawl-only runs of 5 pages on ${build}: ${runs.map((r) => r.length).join(', ')} events; the last: ${kinds(runs[2])}`);
    }
  });
});
