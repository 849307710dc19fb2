// What each workflow run pays before its first command, with the SDK's module sharing
// (test/helpers/bundle-context.ts): evaluating the workflow modules (importWorkflows) and
// validating its input, as process CPU.
import { loadBundleContext, type ModuleExports } from '../../test/helpers/bundle-context.js';

export interface ModuleEvalSample {
  /** importWorkflows(): the workflow modules and what they import. */
  importMs: number;
  /** The input validation the run does first, on an already evaluated module. */
  parseMs: number;
}

/** CPU (user + system) since `start`, in ms: on a shared machine wall time counts other jobs too. */
function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Times `runs` runs of `code`: each evaluates the workflow modules, then `parse` on one of them. */
export function moduleEvalSamples(code: string, runs: number, parse: { module: string; call: (exports: ModuleExports) => void }): ModuleEvalSample[] {
  const bundle = loadBundleContext(code);
  const samples: ModuleEvalSample[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.cpuUsage();
    const run = bundle.startRun();
    const importMs = cpuMs(t0);
    const exports = run.module(parse.module);
    const t1 = process.cpuUsage();
    parse.call(exports);
    samples.push({ importMs, parseMs: cpuMs(t1) });
  }
  return samples;
}
