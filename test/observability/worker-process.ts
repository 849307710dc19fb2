// The environment-configured worker (`webdata worker`) as a child process against a test stack:
// its own Temporal runtime, so it can install the metrics exporter the test scrapes.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { pipelineWorkflowBundle, tracedPipelineWorkflowBundle } from '../helpers/workflow-bundle.js';
import { nodeScriptArgs } from '../helpers/node-script.js';

const WORKER = fileURLToPath(new URL('../../src/worker.ts', import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the worker printed (stdout and stderr), so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startWorkerProcess(stack: DevStack, taskQueue: string, env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, nodeScriptArgs(WORKER), {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TEMPORAL_ADDRESS: stack.temporal.address,
      TEMPORAL_NAMESPACE: stack.temporal.namespace,
      WEBDATA_API_URL: stack.service.url,
      // The stack's site and receiver on 127.0.0.1, by host:port, as `webdata dev` prints them.
      WEBDATA_ALLOW_PRIVATE_ADDRESSES: stack.privateHosts.join(','),
      WEBDATA_API_KEY: stack.service.apiKey,
      WEBDATA_STORE: stack.storeSpec,
      WEBDATA_TASK_QUEUE: taskQueue,
      // A bundle kept on disk: webpack at the worker's start would cost about 5 s of CPU.
      WEBDATA_WORKFLOW_BUNDLE: await (env.OTEL_EXPORTER_OTLP_ENDPOINT ? tracedPipelineWorkflowBundle() : pipelineWorkflowBundle()),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const deadline = Date.now() + 120_000;
  while (!out.includes('webdata worker: task queue')) {
    if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode}) before it was ready:\n${out.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`worker not ready after 120 s:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await closed;
      clearTimeout(timer);
    },
  };
}

/** Polls until `check` holds; the generous deadline only catches what never happens. */
export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 250))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}
