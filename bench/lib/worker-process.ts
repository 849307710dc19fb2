// The package's worker as a child process (the worker from sources, configured by
// WEBDATA_* variables, as in test/integration/worker-crash.test.ts), so its memory can be
// sampled on its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WorkerProcessOptions {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  apiUrl: string;
  apiKey: string;
  store: string;
  bundlePath: string;
  /** Give up waiting for the worker to report ready after this long. */
  readyTimeoutMs?: number;
  /** Extra node options before the script (e.g. --cpu-prof, which NODE_OPTIONS does not take). */
  nodeArgs?: string[];
  /** Extra environment for this worker (e.g. WEBDATA_MAX_CONCURRENT_ACTIVITIES), over the inherited one. */
  env?: Record<string, string>;
  /** Called with each line the worker prints on stdout (e.g. its settings line). */
  onLine?: (line: string) => void;
}

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** SIGTERM (the SDK drains and exits), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export async function spawnWorker(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--conditions=webdata-source', '--import', 'tsx', 'src/worker.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_NAMESPACE: options.namespace,
      WEBDATA_API_URL: options.apiUrl,
      WEBDATA_API_KEY: options.apiKey,
      WEBDATA_STORE: options.store,
      WEBDATA_TASK_QUEUE: options.taskQueue,
      WEBDATA_WORKFLOW_BUNDLE: options.bundlePath,
      TEMPORAL_LOG_LEVEL: 'ERROR',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (options.onLine) {
    let rest = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) options.onLine?.(line);
    });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('worker process: not ready in time')), options.readyTimeoutMs ?? 60_000);
      let out = '';
      const onData = (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('webdata worker: task queue')) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`worker process exited before it was ready (code ${code})`));
      });
    });
  } catch (err) {
    await stop(1000);
    throw err;
  }
  child.stdout?.resume();
  return { child, pid: child.pid as number, stop };
}
