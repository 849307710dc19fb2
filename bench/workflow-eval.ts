// What one run costs before its first command (issues 27 and 44): the worker's reusable V8 context
// gives each run its own webpack module cache, so the workflow modules are evaluated again per run,
// all but what the bundle preloads (workflows/preload.ts). Replays N copies of a recorded history with
// the workflows of a git ref ("before", default main) and of the working tree ("now"), side by
// side, alternating, and prints the process CPU per run (all threads) and the ratio:
//   - first task: the history cut after its first workflow task started, so a run is the module
//     evaluation, the input validation and the first activation (what starting a run costs);
//   - whole run: the full history (every activation of a successful pipeline); each side replays
//     the history its own tree recorded (across a major version neither replays the other's).
// No server, no activities: the numbers are the workflow thread's work alone.
//
//   node --conditions=webdata-source --import tsx bench/workflow-eval.ts [--runs=200] [--rounds=3] [--before=<git ref>] [--history=success]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, Worker, type BundleOptions } from '@temporalio/worker';
import { decodeHistory, HISTORIES_DIR, HISTORY_EXTENSION } from '../test/helpers/histories.js';
import { quietTemporalLogs } from '../test/helpers/temporal.js';
import { intOption, runBench, stringOption, timeoutMs } from './lib/harness.js';
import { moduleEvalSamples } from './lib/module-eval.js';
import type { ModuleExports } from '../test/helpers/bundle-context.js';
import { workflowBundlerOptions } from '../src/worker/bundler-options.js';
import { fixed, median, ratio } from './lib/stats.js';
import { printTable } from './lib/table.js';

type History = proto.temporal.api.history.v1.IHistory;
type Configuration = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
const { EventType } = proto.temporal.api.enums.v1;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/webdata-bench-bundles');

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m), log() {} };

type BundlerOptions = (hook: (c: Configuration) => Configuration) => Partial<BundleOptions>;

/**
 * The bundler options the workers of `root` use (its src/worker/bundler-options.ts, the preload
 * with them), so each side is measured as it runs; none for a checkout from before that file.
 */
async function bundlerOptionsOf(root: string): Promise<BundlerOptions> {
  if (root === ROOT) return workflowBundlerOptions;
  const file = join(root, 'src/worker/bundler-options.ts');
  if (!existsSync(file)) return (hook) => ({ webpackConfigHook: hook });
  return ((await import(pathToFileURL(file).href)) as { workflowBundlerOptions: BundlerOptions }).workflowBundlerOptions;
}

/** The workflows of `root` (a checkout: src/ and packages/contract/src/) as one bundle's code. */
async function bundle(root: string): Promise<string> {
  const options = await bundlerOptionsOf(root);
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(root, 'src/workflows/index.ts'),
    ...options((config) => ({
      ...config,
      resolve: {
        ...config.resolve,
        conditionNames: ['webdata-source', '...'],
        // The checkout's own contract, not the workspace link to this tree's.
        alias: { ...(config.resolve?.alias as object), 'webdata-contract$': join(root, 'packages/contract/src/index.ts') },
      },
    })),
    logger: silent,
  });
  return code;
}

/**
 * The bundle of a git ref, kept on disk by commit: its sources exported outside node_modules
 * (the SDK's loader skips files under node_modules) next to a link to this tree's node_modules.
 */
async function refBundle(ref: string): Promise<{ sha: string; code: string }> {
  const sha = execFileSync('git', ['rev-parse', '--short=12', ref], { cwd: ROOT, encoding: 'utf8' }).trim();
  // `-own-options`: bundled with the ref's bundler options (earlier caches were bundled without).
  const cached = join(CACHE, `${sha}-own-options.js`);
  if (existsSync(cached)) return { sha, code: readFileSync(cached, 'utf8') };
  const dir = mkdtempSync(join(tmpdir(), `webdata-bench-${sha}-`));
  try {
    const tar = execFileSync('git', ['archive', sha, 'src', 'packages/contract/src', 'package.json'], { cwd: ROOT, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const code = await bundle(dir);
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(`${cached}.${process.pid}`, code);
    renameSync(`${cached}.${process.pid}`, cached);
    return { sha, code };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The recorded history `name` as the tree of `ref` has it, if it has one. */
function refHistory(ref: string, name: string): History | undefined {
  try {
    return decodeHistory(execFileSync('git', ['show', `${ref}:test/replay/histories/${name}${HISTORY_EXTENSION}`], { cwd: ROOT, maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return undefined;
  }
}

/** The check a run of `code` makes of its input: the workflow's own (input-check.ts), or before it the client's. */
function inputCheckOf(code: string, input: unknown): { module: string; call: (exports: ModuleExports) => void } {
  const [module, name] = code.includes('src/workflows/input-check.ts') ? ['src/workflows/input-check.ts', 'checkPipelineInput'] : ['src/workflows/input.ts', 'parsePipelineInput'];
  return { module, call: (exports) => (exports[name] as (input: unknown, policy: object) => unknown)(input, { allowPrivateAddresses: true }) };
}

/** The history up to its first WorkflowTaskStarted: replaying it is the run's first activation. */
function firstTask(history: History): History {
  const events = history.events ?? [];
  const end = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  return { events: events.slice(0, end + 1) };
}

/** CPU of this process (every thread: the SDK's workflow thread too) per replayed run, in ms. */
async function replayCpuPerRun(code: string, history: History, runs: number): Promise<number> {
  const histories = Array.from({ length: runs }, (_, i) => ({ workflowId: `bench-${i}`, history }));
  const start = process.cpuUsage();
  let failed = 0;
  let firstError = '';
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code }, replayName: 'webdata-bench' }, histories)) {
    if (result.error) {
      failed++;
      firstError ||= result.error.message;
    }
  }
  const used = process.cpuUsage(start);
  if (failed > 0) throw new Error(`${failed} of ${runs} replays failed: ${firstError}`);
  return (used.user + used.system) / 1000 / runs;
}

await runBench('workflow-eval', timeoutMs(1200), async (_closers, log) => {
  quietTemporalLogs();
  const runs = intOption('runs', 'WORKFLOW_EVAL_RUNS', 200);
  const rounds = intOption('rounds', 'WORKFLOW_EVAL_ROUNDS', 3);
  const beforeRef = stringOption('before', 'WORKFLOW_EVAL_BEFORE') ?? execFileSync('git', ['merge-base', 'HEAD', 'main'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const historyName = stringOption('history') ?? 'success';
  const full = decodeHistory(readFileSync(`${HISTORIES_DIR}${historyName}${HISTORY_EXTENSION}`));
  // Each side replays the history its own tree recorded: across a major version (patches
  // removed) neither side can replay the other's.
  const beforeFull = refHistory(beforeRef, historyName) ?? full;

  log(`bundling ${beforeRef} and the working tree`);
  const before = await refBundle(beforeRef);
  const now = await bundle(ROOT);
  const sides = [{ label: `before (${before.sha})`, code: before.code, full: beforeFull }, { label: 'now (working tree)', code: now, full }];

  const input = defaultPayloadConverter.fromPayload(full.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]);
  const evalRuns = intOption('eval-runs', 'WORKFLOW_EVAL_EVAL_RUNS', 300);
  const evalSamples = sides.map(() => ({ importMs: [] as number[], parseMs: [] as number[] }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, side] of sides.entries()) {
      const samples = moduleEvalSamples(side.code, evalRuns, inputCheckOf(side.code, input));
      evalSamples[i].importMs.push(...samples.map((s) => s.importMs));
      evalSamples[i].parseMs.push(...samples.map((s) => s.parseMs));
    }
    log(`module evaluation, round ${round + 1} of ${rounds}`);
  }
  const evalRows = (['importMs', 'parseMs'] as const).map((k) => {
    const [b, n] = evalSamples.map((s) => median(s[k]));
    return [k === 'importMs' ? 'evaluate the workflow modules' : 'validate the input (the workflow\'s check)', fixed(b, 2), fixed(n, 2), fixed(b - n, 2), ratio(n, b)];
  });
  const [bTotal, nTotal] = evalSamples.map((s) => median(s.importMs.map((ms, j) => ms + s.parseMs[j])));
  evalRows.push(['both (median of the sums)', fixed(bTotal, 2), fixed(nTotal, 2), fixed(bTotal - nTotal, 2), ratio(nTotal, bTotal)]);
  printTable(
    `Per run before its first command (ms, median of ${rounds} × ${evalRuns} runs; the ${historyName} history's input)`,
    ['step', sides[0].label, sides[1].label, 'saved', 'now / before'],
    evalRows,
    ['Process CPU per run, one context per bundle with the SDK\'s module sharing, preloading and freezing (bench/lib/module-eval.ts).'],
  );

  const cases = [{ name: 'first task', history: firstTask }, { name: 'whole run', history: (h: History) => h }];
  const rows: string[][] = [];
  for (const { name, history } of cases) {
    const samples = sides.map(() => [] as number[]);
    // A warm-up pass per side (the replay worker's own start, JIT), then alternating rounds.
    for (const side of sides) await replayCpuPerRun(side.code, history(side.full), Math.min(runs, 20));
    for (let round = 0; round < rounds; round++) {
      for (const [i, side] of sides.entries()) {
        samples[i].push(await replayCpuPerRun(side.code, history(side.full), runs));
        log(`${name}, round ${round + 1}: ${side.label} ${fixed(samples[i].at(-1)!, 2)} ms a run`);
      }
    }
    const [b, n] = samples.map(median);
    const events = sides.map((side) => history(side.full).events?.length ?? 0);
    rows.push([`${name} (${events[0] === events[1] ? events[0] : events.join(' / ')} events)`, fixed(b, 2), fixed(n, 2), fixed(b - n, 2), ratio(n, b)]);
  }
  printTable(
    `CPU per replayed run (ms, median of ${rounds} rounds of ${runs} runs; history ${historyName})`,
    ['case', sides[0].label, sides[1].label, 'saved', 'now / before'],
    rows,
    [
      'Process CPU (user + system, every thread) over the replays divided by the runs; a replay also pays the SDK\'s own activation and history work.',
      'Each round is one replay worker: its context\'s one-time cost (the preload with it) is spread over the round\'s runs, so few runs overstate it.',
    ],
  );
});
