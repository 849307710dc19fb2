// A workflow bundle evaluated as the SDK's reusable V8 context does (lib/workflow/reusable-vm.js):
// one context; the bundle's preloaded modules loaded into a shared module cache, then frozen;
// every run with a module cache of its own. Lets a test call into the modules a run sees, and a
// benchmark time what a run pays to evaluate them.
import { createRequire } from 'node:module';
import vm from 'node:vm';

const require = createRequire(import.meta.url);
// The SDK's own globals for workflow contexts (not a public export).
const { injectGlobals } = require('@temporalio/worker/lib/workflow/vm-shared.js') as { injectGlobals(context: object): void };

export type ModuleExports = Record<string, unknown>;
interface TemporalEntry { importWorkflows(): ModuleExports; preloadModules?(): void }

/** The SDK's deepFreeze (private there): objects recursively, functions shallowly. */
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

export interface BundleRun {
  /** The exports of the module a run sees whose id ends with `suffix` (e.g. `src/workflows/input-check.ts`). */
  module(suffix: string): ModuleExports;
}

export interface BundleContext {
  /** Modules the bundle preloaded (shared by every run). */
  sharedModules: string[];
  /** Starts a run: a fresh module cache, then the workflow modules evaluated (importWorkflows). */
  startRun(): BundleRun;
}

export function loadBundleContext(code: string): BundleContext {
  const context = vm.createContext({}) as { __TEMPORAL__?: TemporalEntry };
  const shared = new Map<PropertyKey, { exports: ModuleExports }>();
  let perRun: Map<PropertyKey, { exports: ModuleExports }> | undefined;
  Object.defineProperty(context, '__webpack_module_cache__', {
    value: new Proxy({}, {
      get: (_, id) => shared.get(id) ?? perRun?.get(id),
      set: (_, id, value: { exports: ModuleExports }) => {
        (perRun ?? shared).set(id, value);
        return true;
      },
    }),
  });
  injectGlobals(context);
  new vm.Script(code, { filename: 'workflow-bundle.js' }).runInContext(context);
  const entry = context.__TEMPORAL__!;
  entry.preloadModules?.();
  for (const module of shared.values()) deepFreeze(module);
  return {
    sharedModules: [...shared.keys()].map(String),
    startRun() {
      const modules = new Map<PropertyKey, { exports: ModuleExports }>();
      perRun = modules;
      entry.importWorkflows();
      return {
        module(suffix) {
          // The run's own module, or the preloaded one every run shares.
          const found = [...modules.entries(), ...shared.entries()].find(([id]) => String(id).endsWith(suffix));
          if (!found) throw new Error(`the run has no module ${suffix}`);
          return found[1].exports;
        },
      };
    },
  };
}
