// What the Temporal server and the worker pay per run, by what the run's history holds (issue 27).
// A pipeline run of 100 pages records 43 events; 12 of them come from the 6 patches it reaches
// (a marker and a TemporalChangeVersion upsert each), 5 from its own search attribute upserts,
// 4 from 2 cancelled timers. Side by side in one run, alternating rounds, one Temporal dev server
// and one in-process worker, N runs at once per round:
//   plain                  two activities, nothing else (3 workflow tasks)
//   + U upserts            the same with U search attribute upserts in the first task
//   + P patches            the same with P patches reached
//   + T cancelled timers   the same with T waits cut short by the first activity
// Prints the Temporal server's CPU and this process's (the worker's) per run, their ratio to plain
// and the cost per extra event. Then one thing the SDK pays on every call into a workflow: Node
// runs `vm` scripts with a `timeout` by starting a watchdog thread per call; the worker passes its
// isolateExecutionTimeout on each of them (a few calls per activation).
//
//   node --conditions=webdata-source --import tsx bench/run-cost.ts [--runs=200] [--rounds=3] [--count=6]
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { Worker } from '@temporalio/worker';
import { intOption, runBench, timeoutMs } from './lib/harness.js';
import { childPids, readCpuSeconds } from './lib/proc-sampler.js';
import { fixed, median, ratio } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { startBenchTemporal } from './lib/temporal.js';

const TASK_QUEUE = 'run-cost';

/** CPU µs of one `runInContext` call of a trivial script, with and without a timeout. */
function vmCallMicros(calls: number): { plain: number; timeout: number } {
  const context = vm.createContext({ n: 0 });
  const script = new vm.Script('n++');
  const measure = (options: vm.RunningScriptOptions) => {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) script.runInContext(context, options);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / calls;
  };
  const plain: number[] = [];
  const timeout: number[] = [];
  for (let round = 0; round < 3; round++) {
    plain.push(measure({}));
    timeout.push(measure({ timeout: 5000 }));
  }
  return { plain: median(plain), timeout: median(timeout) };
}

await runBench('run-cost', timeoutMs(900), async (closers, log) => {
  const runs = intOption('runs', 'RUN_COST_RUNS', 200);
  const rounds = intOption('rounds', 'RUN_COST_ROUNDS', 3);
  const count = intOption('count', 'RUN_COST_COUNT', 6);
  const temporal = await startBenchTemporal({ webhookSecret: '', log });
  closers.add('Temporal dev server', () => temporal.close());
  const { env } = temporal;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: fileURLToPath(new URL('./lib/run-cost-workflows.ts', import.meta.url)),
    activities: { step: async () => 1 },
  });
  const temporalCpu = () => childPids('temporal').reduce((n, pid) => n + readCpuSeconds(pid), 0);

  const timers = Math.ceil(count / 3);
  const cases = [
    { label: 'plain (2 activities)', type: 'plain', args: [] as number[] },
    { label: `+ ${count} search attribute upserts`, type: 'upserts', args: [count] },
    { label: `+ ${count} patches`, type: 'patches', args: [count] },
    { label: `+ ${timers} cancelled timers in one task`, type: 'cancelledTimers', args: [timers] },
  ];
  const samples = cases.map(() => ({ temporal: [] as number[], worker: [] as number[], events: 0 }));
  await worker.runUntil(async () => {
    // Warm-up: the bundle's first evaluation, the server's caches.
    await Promise.all(Array.from({ length: 20 }, (_, i) => env.client.workflow.execute('plain', { taskQueue: TASK_QUEUE, workflowId: `warm-${i}` })));
    for (let round = 0; round < rounds; round++) {
      for (const [i, c] of cases.entries()) {
        const t0 = temporalCpu();
        const w0 = readCpuSeconds(process.pid);
        const handles = await Promise.all(Array.from({ length: runs }, (_, j) => env.client.workflow.start(c.type, { taskQueue: TASK_QUEUE, workflowId: `${c.type}-${round}-${j}`, args: c.args })));
        await Promise.all(handles.map((h) => h.result()));
        samples[i].temporal.push(((temporalCpu() - t0) * 1000) / runs);
        samples[i].worker.push(((readCpuSeconds(process.pid) - w0) * 1000) / runs);
        if (round === 0) samples[i].events = (await handles[0].fetchHistory()).events?.length ?? 0;
        log(`round ${round + 1}: ${c.label}: Temporal ${fixed(samples[i].temporal.at(-1)!, 1)} ms, worker ${fixed(samples[i].worker.at(-1)!, 1)} ms a run`);
      }
    }
  });

  const base = { temporal: median(samples[0].temporal), worker: median(samples[0].worker) };
  printTable(
    `CPU per run by what its history holds (ms, median of ${rounds} rounds of ${runs} runs at once)`,
    ['run', 'events', 'Temporal server', '× plain', 'worker', '× plain', 'Temporal + worker per extra event'],
    cases.map((c, i) => {
      const temporal = median(samples[i].temporal);
      const workerMs = median(samples[i].worker);
      const extra = samples[i].events - samples[0].events;
      return [c.label, String(samples[i].events), fixed(temporal, 1), ratio(temporal, base.temporal), fixed(workerMs, 1), ratio(workerMs, base.worker),
        extra > 0 ? fixed((temporal + workerMs - base.temporal - base.worker) / extra, 2) : '—'];
    }),
    [
      'Temporal server: the dev server\'s process CPU (SQLite in memory). Worker: this process (the SDK\'s workflow thread, activities, client).',
      'CPU measured while other work runs is inflated; the ratios, measured side by side, are the figures to compare.',
    ],
  );

  const vmCost = vmCallMicros(20_000);
  printTable(
    'One call into a vm context (what the SDK does a few times per workflow activation; CPU µs a call, median of 3 × 20,000)',
    ['call', 'µs', '× without'],
    [
      ['runInContext without timeout', fixed(vmCost.plain, 1), '1.00x'],
      ['runInContext with timeout (the worker\'s isolateExecutionTimeout: a watchdog thread per call)', fixed(vmCost.timeout, 1), ratio(vmCost.timeout, vmCost.plain)],
    ],
  );
});
