// The fast workflow tests' environment: Temporal's time-skipping test server (the Java build
// from Maven Central, cached by scripts/ensure-test-server.sh), one per test file, with the
// package's workflows bundled once per file and activities replaced by recording stubs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { bundleWorkflowCode, Worker, type WorkflowBundlePath } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../../src/search-attributes.js';
import { WORKFLOWS_PATH } from '../../src/worker/worker.js';
import { ACTIVITY_NAMES, type Stubs } from './stub-activities.js';
import { quietTemporalLogs } from './temporal.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENSURE_SCRIPT = join(ROOT, 'scripts/ensure-test-server.sh');
const BUNDLE_CACHE = join(ROOT, 'node_modules/.cache/webdata-unit-workflows');

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

let bundle: Promise<WorkflowBundlePath> | undefined;

/** Sources a bundle is made of: the workflows, what they import from src/, the contract. */
const BUNDLE_INPUTS = ['src', 'packages/contract/src', 'package-lock.json'].map((p) => join(ROOT, p));

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).sort().flatMap((name) => filesUnder(join(path, name)));
}

/**
 * The package's workflows (src/workflows/index.ts) bundled from the sources (no build needed),
 * kept on disk by a hash of those sources: webpack takes 10-25 s on a busy 2-core machine, and
 * every test file is its own process.
 */
export function workflowBundle(): Promise<WorkflowBundlePath> {
  bundle ??= (async (): Promise<WorkflowBundlePath> => {
    const hash = createHash('sha256');
    for (const file of BUNDLE_INPUTS.flatMap(filesUnder)) hash.update(file).update(readFileSync(file));
    const cached = join(BUNDLE_CACHE, `workflows-${hash.digest('hex').slice(0, 16)}.js`);
    if (existsSync(cached)) return { codePath: cached };
    const { code } = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      // Workspace packages resolve to their TypeScript sources, as they do for the tests.
      webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, conditionNames: ['webdata-source', '...'] } }),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error: (message, meta) => console.error(message, meta ?? ''), log() {} },
    });
    mkdirSync(BUNDLE_CACHE, { recursive: true });
    // Written whole, then renamed: a file running beside this one never reads half a bundle.
    const partial = `${cached}.${process.pid}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
    return { codePath: cached };
  })();
  return bundle as Promise<WorkflowBundlePath>;
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
