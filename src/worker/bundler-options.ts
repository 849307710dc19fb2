// How this package's workflows are bundled (by a Worker given workflowsPath, by bundle.ts and by the
// tests): zod, the contract's rules and the input checks preloaded, evaluated once per worker
// instead of once per run (workflows/preload.ts).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BundleOptions } from '@temporalio/worker';

/** The module the bundle loads once per worker, before any run. */
export const WORKFLOW_PRELOAD_PATH = fileURLToPath(new URL(`../workflows/preload${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

type ConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

/**
 * `preloadModules` and the webpack rule it needs: the package is marked `sideEffects: false`, so
 * webpack would drop the preload's `require` (its result is unused) and preload nothing.
 * `preloadPath`: the preload beside the workflows bundled, when they are not this file's (the
 * tests bundle the TypeScript sources also when they run compiled); the preloaded input checks
 * are only shared with runs that import the same files.
 */
export function workflowBundlerOptions(hook: ConfigHook = (config) => config, preloadPath = WORKFLOW_PRELOAD_PATH): { preloadModules: string[]; webpackConfigHook: ConfigHook } {
  // webpack names a module by its real path: the rule must too (the tests' tree links the sources).
  const preloadFile = realpathSync(preloadPath);
  return {
    preloadModules: [preloadPath],
    webpackConfigHook: (config) => {
      const hooked = hook(config);
      return { ...hooked, module: { ...hooked.module, rules: [...(hooked.module?.rules ?? []), { test: preloadFile, sideEffects: true }] } };
    },
  };
}
