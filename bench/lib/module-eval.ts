// A workflow bundle evaluated as the SDK's reusable V8 context does (lib/workflow/reusable-vm.js):
// one context, modules loaded before any run shared, every run with a module cache of its own. The
// per-run cost timed here (process CPU) is what each workflow run pays before its first command:
// evaluating the workflow modules (importWorkflows) and validating its input.
import { createRequire } from 'node:module';
import vm from 'node:vm';

const require = createRequire(import.meta.url);
// The SDK's own globals for workflow contexts (not a public export; a benchmark may reach in).
const { injectGlobals } = require('@temporalio/worker/lib/workflow/vm-shared.js') as { injectGlobals(context: object): void };

interface Exports { [name: string]: unknown }
interface TemporalEntry { importWorkflows(): Exports; preloadModules?(): void }

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

/** The SDK's deepFreeze (reusable-vm.js, private there): objects recursively, functions shallowly. */
function deepFreeze(object: unknown, visited = new WeakSet<object>()): void {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function') || visited.has(object)) return;
  visited.add(object);
  if (Object.isFrozen(object)) return;
  if (typeof object === 'object') {
    for (const name of [...Object.getOwnPropertyNames(object), ...Object.getOwnPropertySymbols(object)]) {
      try {
        deepFreeze((object as Record<PropertyKey, unknown>)[name], visited);
      } catch {
        // As the SDK: some objects cannot be frozen (typed arrays).
      }
    }
  }
  Object.freeze(object);
}

/** Times `runs` runs of `code`: each evaluates the workflow modules, then `parse` on one of them. */
export function moduleEvalSamples(code: string, runs: number, parse: { module: string; call: (exports: Exports) => void }): ModuleEvalSample[] {
  const context = vm.createContext({}) as { __TEMPORAL__?: TemporalEntry };
  const shared = new Map<PropertyKey, unknown>();
  let perRun: Map<PropertyKey, { exports: Exports }> | undefined;
  Object.defineProperty(context, '__webpack_module_cache__', {
    value: new Proxy({}, {
      get: (_, id) => shared.get(id) ?? perRun?.get(id),
      set: (_, id, value: { exports: Exports }) => {
        if (perRun) perRun.set(id, value);
        else shared.set(id, value);
        return true;
      },
    }),
  });
  injectGlobals(context);
  new vm.Script(code, { filename: 'workflow-bundle.js' }).runInContext(context);
  const entry = context.__TEMPORAL__!;
  // As the SDK: preloaded modules land in the shared cache, then everything shared is frozen.
  entry.preloadModules?.();
  for (const module of shared.values()) deepFreeze(module);
  const samples: ModuleEvalSample[] = [];
  for (let i = 0; i < runs; i++) {
    perRun = new Map();
    const t0 = process.cpuUsage();
    entry.importWorkflows();
    const importMs = cpuMs(t0);
    const found = [...perRun.entries()].find(([id]) => String(id).endsWith(parse.module));
    if (!found) throw new Error(`the bundle has no module ${parse.module}`);
    const t1 = process.cpuUsage();
    parse.call(found[1].exports);
    samples.push({ importMs, parseMs: cpuMs(t1) });
  }
  return samples;
}
