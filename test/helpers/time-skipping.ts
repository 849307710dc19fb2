// The fast workflow tests' environment: Temporal's time-skipping test server (the Java build
// from Maven Central, cached by scripts/ensure-test-server.sh), one per test file, with the
// package's workflows bundled once per file and activities replaced by recording stubs.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { Worker, type WorkflowBundlePath } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../../src/search-attributes.js';
import { ACTIVITY_NAMES, type Stubs } from './stub-activities.js';
import { quietTemporalLogs } from './temporal.js';
import { cachedWorkflowBundle } from './workflow-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENSURE_SCRIPT = join(ROOT, 'scripts/ensure-test-server.sh');

/** sdk-core gives the server 5 s to answer and gives up; a loaded machine can need a second try. */
const START_ATTEMPTS = 4;

/** The cached test server's wrapper (fetched from Maven Central on first use). */
export function testServerPath(): string {
  return execFileSync('bash', [ENSURE_SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  quietTemporalLogs();
  const path = testServerPath();
  for (let attempt = 1; ; attempt++) {
    try {
      const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
      await registerSearchAttributes(env);
      return env;
    } catch (err) {
      if (attempt >= START_ATTEMPTS || !/did not start within|Failed connecting to test server/.test(String((err as Error)?.message ?? err))) throw err;
    }
  }
}

const { IndexedValueType } = proto.temporal.api.enums.v1;

/** The pipeline upserts the package's search attributes; the server refuses keys it does not know. */
async function registerSearchAttributes(env: TestWorkflowEnvironment): Promise<void> {
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTES.map((key) => [key.name, IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`]])),
  });
}

/** The package's workflows, bundled once and kept on disk (helpers/workflow-bundle.ts). */
export async function workflowBundle(): Promise<WorkflowBundlePath> {
  return { codePath: await cachedWorkflowBundle() };
}

export interface WorkflowTests {
  env: TestWorkflowEnvironment;
  /** The task queue of the file's worker. */
  taskQueue: string;
  /** Runs `fn` with `stubs` as the worker's activities (tests of a file run one at a time). */
  with<T>(stubs: Stubs, fn: () => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

/**
 * One test server and one worker for a test file: the worker's activities delegate to the
 * stubs of the test that is running, so a test costs its workflow's run and no worker start.
 */
export async function startWorkflowTests(): Promise<WorkflowTests> {
  const env = await startTimeSkipping();
  const taskQueue = `unit-workflows-${process.pid}`;
  let current: Stubs | undefined;
  const activities = Object.fromEntries(ACTIVITY_NAMES.map((name) => [name, (...args: unknown[]) => {
    const impl = current?.activities[name] as ((...a: unknown[]) => Promise<unknown>) | undefined;
    if (!impl) throw ApplicationFailure.nonRetryable(`no stub for activity ${name}`, 'unstubbed');
    return impl(...args);
  }]));
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities });
  const running = worker.run();
  return {
    env,
    taskQueue,
    async with(stubs, fn) {
      current = stubs;
      try {
        return await fn();
      } finally {
        current = undefined;
      }
    },
    async teardown() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
