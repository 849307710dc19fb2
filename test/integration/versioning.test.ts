// Worker versioning on the dev server: a pipeline run started on build "a" stays on "a" (PINNED)
// after build "b" becomes the deployment's current version, and finishes there; a new run and a
// scheduled run start on "b". The builds differ observably: `buildMarker` answers its build.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WebDataClient } from 'webdata-client';
import { createStore } from 'webdata-storage';
import { createActivities } from '../../src/activities/index.js';
import type { MapToStoreResult } from '../../src/activities/types.js';
import { getProgress, raiseBudget, startPipeline } from '../../src/client/pipeline.js';
import { deleteSchedule, schedulePipeline } from '../../src/client/schedules.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { createWebDataWorker, describeConcurrency } from '../../src/worker/worker.js';
import { startTestTemporal } from '../helpers/temporal.js';

const DEPLOYMENT = 'webdata-test';
const TASK_QUEUE = 'versioning';

let env: TestWorkflowEnvironment;
const workers: Array<{ worker: Worker; running: Promise<void> }> = [];
const storeDirs: string[] = [];

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('versioning', () => {
  before(async () => {
    // Server 1.29 has the worker deployment APIs on by default (no dynamic config needed).
    env = await startTestTemporal();
  });

  after(async () => {
    for (const w of workers) w.worker.shutdown();
    await Promise.allSettled(workers.map((w) => w.running));
    await env?.teardown();
    for (const dir of storeDirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A worker of build `buildId` with its own workflows module; map answers one URL without a service. */
  async function startBuild(buildId: 'a' | 'b'): Promise<void> {
    const client = new WebDataClient({ apiKey: 'unused', baseUrl: 'http://127.0.0.1:9' });
    const dir = mkdtempSync(join(tmpdir(), `webdata-versioning-${buildId}-`));
    storeDirs.push(dir);
    const store = createStore(dir);
    const activities = {
      ...createActivities({ client, store }),
      async mapToStore(input: { runId: string; list?: string }): Promise<MapToStoreResult> {
        return { count: 1, creditsUsed: 1, ref: { runId: input.runId, list: input.list }, sample: [`built-by-${buildId}`] };
      },
    };
    const worker = await createWebDataWorker({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue: TASK_QUEUE,
      client,
      store,
      metrics: false,
      deployment: { deploymentName: DEPLOYMENT, buildId },
      overrides: { workflowsPath: fileURLToPath(new URL(`./versioning/workflows-${buildId}.ts`, import.meta.url)), activities },
    });
    // Each build's worker polls for workflow tasks as the package's workers do by default.
    assert.equal(describeConcurrency(worker.options).split(', ').find((part) => part.startsWith('workflow task pollers')), 'workflow task pollers autoscaling up to 100');
    workers.push({ worker, running: worker.run() });
  }

  /** Makes `buildId` the deployment's current version (retried until the server has seen its pollers). */
  async function setCurrent(buildId: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await env.client.workflowService.setWorkerDeploymentCurrentVersion({ namespace: env.namespace ?? 'default', deploymentName: DEPLOYMENT, buildId, identity: 'versioning.test' });
        return;
      } catch (err) {
        // Until the version's pollers have reached the server it is refused; anything else is a failure.
        if (Date.now() > deadline || /namespace|invalid/i.test(String((err as Error).message)) && !/poller/i.test(String((err as Error).message))) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** The build a run's workflow tasks are on (describe's versioning info), once it has one. */
  async function buildOf(workflowId: string): Promise<string> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { raw } = await env.client.workflow.getHandle(workflowId).describe();
      const info = raw.workflowExecutionInfo?.versioningInfo;
      const buildId = info?.deploymentVersion?.buildId;
      if (buildId) {
        assert.equal(info?.deploymentVersion?.deploymentName, DEPLOYMENT);
        return buildId;
      }
      if (Date.now() > deadline) throw new Error(`${workflowId} has no deployment version: ${JSON.stringify(info)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 250))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  }

  /** Parks at map: nothing fits a budget of 0, and it waits for a raise. Nothing fetches its URL. */
  const PARKED: PipelineInput = {
    url: 'https://site.example/',
    stages: { select: false, crawl: false, batch: false, interact: false, support: false },
    budget: { credits: 0, waitForRaiseMs: 600_000 },
  };

  test('a pinned run finishes on its build after a new current version; new and scheduled runs start on the new one', async () => {
    await startBuild('a');
    await setCurrent('a');
    const oldId = `versioning-old-${Date.now()}`;
    const old = await startPipeline(env.client, PARKED, { taskQueue: TASK_QUEUE, workflowId: oldId });
    await until('the old run to park at map', async () => (await getProgress(env.client, oldId).catch(() => undefined))?.stage === 'map');
    assert.equal(await buildOf(oldId), 'a');
    assert.equal(await env.client.workflow.execute('buildMarker', { taskQueue: TASK_QUEUE, workflowId: `marker-a-${Date.now()}` }), 'a');

    await startBuild('b');
    await setCurrent('b');

    // New runs go to b: the changed code answers, and a new pipeline run is on b.
    assert.equal(await env.client.workflow.execute('buildMarker', { taskQueue: TASK_QUEUE, workflowId: `marker-b-${Date.now()}` }), 'b');
    const newId = `versioning-new-${Date.now()}`;
    await startPipeline(env.client, PARKED, { taskQueue: TASK_QUEUE, workflowId: newId });
    assert.equal(await buildOf(newId), 'b');

    // A scheduled run starts on the current version too.
    const scheduleId = `versioning-schedule-${Date.now()}`;
    await schedulePipeline(env.client, PARKED, { scheduleId, every: '1h', paused: true, taskQueue: TASK_QUEUE });
    let scheduledId: string | undefined;
    try {
      await env.client.schedule.getHandle(scheduleId).trigger();
      await until('the scheduled run to start', async () => {
        const action = (await env.client.schedule.getHandle(scheduleId).describe()).info.recentActions[0]?.action;
        scheduledId = action?.workflow.workflowId;
        return scheduledId !== undefined;
      });
      assert.equal(await buildOf(scheduledId as string), 'b');
    } finally {
      await deleteSchedule(env.client, scheduleId);
    }

    // The old run, woken now, runs its remaining tasks on a (pinned) and finishes there.
    assert.deepEqual(await raiseBudget(env.client, oldId, 5), { budget: 5 });
    const result = await old.result();
    assert.equal(result.stages.map?.status, 'completed');
    assert.equal(await buildOf(oldId), 'a');
    const { events } = await old.fetchHistory();
    const completedTasks = (events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes);
    assert.ok(completedTasks.length >= 3, `only ${completedTasks.length} workflow tasks`);
    for (const e of completedTasks) {
      const attrs = e.workflowTaskCompletedEventAttributes!;
      assert.equal(attrs.deploymentVersion?.buildId, 'a', `workflow task ${String(e.eventId)} ran on ${JSON.stringify(attrs.deploymentVersion)}`);
    }

    for (const id of [newId, scheduledId as string]) await env.client.workflow.getHandle(id).terminate('test done');
  });
});
