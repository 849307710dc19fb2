// The fast workflow tests' environment: Temporal's time-skipping test server (the Java build
// from Maven Central, cached by scripts/ensure-test-server.sh), one per process and shared by
// the files it runs, with the package's workflows bundled once and kept on disk, and activities
// replaced by recording stubs.
import { execFileSync, spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker, type WorkflowBundlePath } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../../src/search-attributes.js';
import { ACTIVITY_NAMES, type Stubs } from './stub-activities.js';
import { quietTemporalLogs } from './temporal.js';
import { cachedWorkflowBundle } from './workflow-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENSURE_SCRIPT = join(ROOT, 'scripts/ensure-test-server.sh');

/** How long the Java server may take to listen: seconds alone, a minute or more under load. */
const SERVER_START_DEADLINE_MS = 180_000;
/** A free port can be taken between our probe and the server's bind: then a new port. */
const START_ATTEMPTS = 3;

/** The cached test server's wrapper (fetched from Maven Central on first use). */
export function testServerPath(): string {
  return execFileSync('bash', [ENSURE_SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts the Java test server ourselves and waits for its port with a generous deadline:
 * sdk-core's own start gives it 5 s and then gives up, which a loaded machine misses again and
 * again (each retry paying the JVM start anew).
 */
async function startServer(path: string): Promise<{ address: string; stop(): Promise<void> }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    // Without --enable-time-skipping: time starts locked, as sdk-core starts it; the time-skipping
    // client unlocks it while a test awaits a result.
    const child = spawn(path, [String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    let exited = false;
    const exit = new Promise<void>((resolve) => child.once('exit', () => {
      exited = true;
      resolve();
    }));
    const stop = async () => {
      if (!exited) child.kill('SIGTERM');
      await exit;
    };
    const until = Date.now() + SERVER_START_DEADLINE_MS;
    while (!exited && Date.now() < until && !(await accepts(port))) await new Promise((r) => setTimeout(r, 200));
    if (!exited && Date.now() < until) return { address: `127.0.0.1:${port}`, stop };
    await stop();
    if (attempt >= START_ATTEMPTS) {
      throw new Error(`the time-skipping test server (${path} ${port}) did not listen within ${SERVER_START_DEADLINE_MS} ms${exited ? ' (it exited)' : ''}: ${stderr.trim()}`);
    }
  }
}

type CreateEnvironment = (options: { server: { type: 'existing' }; address: string; supportsTimeSkipping: true; namespace: string }) => Promise<TestWorkflowEnvironment>;

export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  quietTemporalLogs();
  const server = await startServer(testServerPath());
  try {
    // What createTimeSkipping does after its own server start (SDK pinned at 1.24.0): an
    // environment on an existing server, with the test service and the time-skipping client.
    const create = (TestWorkflowEnvironment as unknown as { create: CreateEnvironment }).create.bind(TestWorkflowEnvironment);
    const env = await create({ server: { type: 'existing' }, address: server.address, supportsTimeSkipping: true, namespace: 'default' });
    await registerSearchAttributes(env);
    const teardown = env.teardown.bind(env);
    env.teardown = async () => {
      try {
        await teardown();
      } finally {
        await server.stop();
      }
    };
    return env;
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** Far beyond any test's run, even on a loaded machine; a run stuck for good fails, not hangs. */
const WITH_DEADLINE_MS = 10 * 60_000;

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
  /**
   * A client whose `result()` leaves the server's time locked, for tests whose timers (leases)
   * must not fire while they wait: the time-skipping client's `result()` lets the server jump to
   * the next timer even while a workflow task is in a worker's hands, past its 10 s timeout.
   */
  realTime: Client;
  /**
   * Runs `fn` with `stubs` as the worker's activities (tests of a file run one at a time). A run
   * that has not ended after WITH_DEADLINE_MS fails the test instead of blocking the suite.
   */
  with<T>(stubs: Stubs, fn: () => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

/** The process's environment and how many files hold it (test/unit-workflows/together.ts runs them all in one process). */
let shared: { tests: Promise<WorkflowTests>; holders: number } | undefined;

/**
 * One test server and one worker per process, shared by the test files it runs: the worker's
 * activities delegate to the stubs of the test that is running, so a test costs its workflow's
 * run and no server or worker start. The last holder's teardown stops both.
 */
export function startWorkflowTests(): Promise<WorkflowTests> {
  if (!shared) {
    const tests = createWorkflowTests();
    shared = { tests, holders: 0 };
    // A start that failed is not kept: the next file tries again.
    tests.catch(() => { if (shared?.tests === tests) shared = undefined; });
  }
  const entry = shared;
  entry.holders += 1;
  return entry.tests.then((tests) => ({
    ...tests,
    async teardown() {
      entry.holders -= 1;
      if (entry.holders > 0) return;
      if (shared === entry) shared = undefined;
      await tests.teardown();
    },
  }));
}

async function createWorkflowTests(): Promise<WorkflowTests> {
  const env = await startTimeSkipping();
  const taskQueue = `unit-workflows-${process.pid}`;
  let current: Stubs | undefined;
  const activities = Object.fromEntries(ACTIVITY_NAMES.map((name) => [name, (...args: unknown[]) => {
    const impl = current?.activities[name] as ((...a: unknown[]) => Promise<unknown>) | undefined;
    if (!impl) throw ApplicationFailure.nonRetryable(`no stub for activity ${name}`, 'unstubbed');
    return impl(...args);
  }]));
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
    // A stub's heartbeats reach the server within a second, and with them a run's cancellation
    // (the SDK otherwise holds them for up to 80% of the heartbeat timeout).
    maxHeartbeatThrottleInterval: '1s',
    defaultHeartbeatThrottleInterval: '1s',
  });
  const running = worker.run();
  return {
    env,
    taskQueue,
    realTime: new Client({ connection: env.connection, namespace: env.namespace ?? 'default' }),
    async with(stubs, fn) {
      current = stubs;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the test's workflows had not ended after ${WITH_DEADLINE_MS / 60_000} min (see the worker's log above)`)), WITH_DEADLINE_MS);
      });
      try {
        return await Promise.race([fn(), deadline]);
      } finally {
        clearTimeout(timer);
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
