// `npm run bench`: the five benchmarks at their default sizes, one after another, each in its
// own process (its own Temporal dev server, service and worker, all stopped when it ends), then
// the pipeline comparison again at 10,000 pages (the issue's goals are at 1,000 and 10,000) and
// the wide row of many-pipelines (1,000 runs of 10 pages on one worker), then store-append (the folder
// store before and after its last change) and last run-cost (the price of each kind of history
// event, side by side); these two always at their defaults. Sizes: each benchmark's
// flags/env (see its header), passed to the first five; with flags of your own the 10,000-page
// and wide passes are left out. BENCH_TIMEOUT_S bounds each one.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const userArgs = process.argv.slice(2);
const BENCHES: Array<{ file: string; args: string[] }> = [
  ...['pipeline-vs-direct.ts', 'history-10k.ts', 'service-throughput.ts', 'many-pipelines.ts', 'tenants.ts'].map((file) => ({ file, args: userArgs })),
  ...(userArgs.length === 0 ? [
    { file: 'pipeline-vs-direct.ts', args: ['--pages=10000', '--runs=3', '--oss-pages=0'] },
    // Issue 27's wide row: 1,000 pipelines of 10 pages at once on one worker (5-12 min here).
    { file: 'many-pipelines.ts', args: ['--pipelines=0', '--wide=1000x10'] },
  ] : []),
  // What one append to the folder store costs, before and after its last change (about 30 s).
  { file: 'store-append.ts', args: [] },
  // What a run's history costs the server and the worker, event kind by event kind (about a minute).
  { file: 'run-cost.ts', args: [] },
];
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

function runOne(file: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=webdata-source', '--import', 'tsx', `bench/${file}`, ...args], { cwd: ROOT, stdio: 'inherit', env: process.env });
    current = child;
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const failed: string[] = [];
for (const { file, args } of BENCHES) {
  if (stopping) break;
  const name = [file, ...args].join(' ');
  console.log(`\n## ${name}`);
  const t0 = Date.now();
  const code = await runOne(file, args);
  console.log(`\n(${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s${code === 0 ? '' : `, exit code ${code}`})`);
  if (code !== 0) failed.push(name);
}
if (failed.length > 0 || stopping) {
  console.error(`bench: ${stopping ? 'interrupted' : `${failed.join(', ')} did not finish`}`);
  process.exitCode = 1;
}
