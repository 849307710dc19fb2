// `npm run bench`: the four benchmarks at their default sizes, one after another, each in its
// own process (its own Temporal dev server, service and worker, all stopped when it ends).
// Sizes: each benchmark's flags/env (see its header); BENCH_TIMEOUT_S bounds each one.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHES = ['pipeline-vs-direct.ts', 'history-10k.ts', 'service-throughput.ts', 'many-pipelines.ts'];
const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** A child that outlives its own deadline by this much is killed. */
const KILL_AFTER_MS = Number(process.env.BENCH_TIMEOUT_S ?? 1500) * 1000 + 120_000;

let stopping = false;
let current: ChildProcess | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // Pass it on and let the running benchmark close what it started; start no other.
  process.on(signal, () => {
    stopping = true;
    current?.kill(signal);
  });
}

function runOne(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=webdata-source', '--import', 'tsx', `bench/${file}`, ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
    current = child;
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const failed: string[] = [];
for (const file of BENCHES) {
  if (stopping) break;
  console.log(`\n## ${file}`);
  const t0 = Date.now();
  const code = await runOne(file);
  console.log(`\n(${file}: ${((Date.now() - t0) / 1000).toFixed(0)} s${code === 0 ? '' : `, exit code ${code}`})`);
  if (code !== 0) failed.push(file);
}
if (failed.length > 0 || stopping) {
  console.error(`bench: ${stopping ? 'interrupted' : `${failed.join(', ')} did not finish`}`);
  process.exitCode = 1;
}
