// How this package's workflows are bundled (by a Worker given workflowsPath, by bundle.ts and by the
// tests): zod preloaded, evaluated once per worker instead of once per run (workflows/preload.ts).
import { fileURLToPath } from 'node:url';
import type { BundleOptions } from '@temporalio/worker';

/** The module the bundle loads once per worker, before any run. */
export const WORKFLOW_PRELOAD_PATH = fileURLToPath(new URL(`../workflows/preload${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

type ConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

/**
 * `preloadModules` and the webpack rule it needs: the package is marked `sideEffects: false`, so
 * webpack would drop the preload's `require` (its result is unused) and preload nothing.
 */
export function workflowBundlerOptions(hook: ConfigHook = (config) => config): { preloadModules: string[]; webpackConfigHook: ConfigHook } {
  return {
    preloadModules: [WORKFLOW_PRELOAD_PATH],
    webpackConfigHook: (config) => {
      const hooked = hook(config);
      return { ...hooked, module: { ...hooked.module, rules: [...(hooked.module?.rules ?? []), { test: WORKFLOW_PRELOAD_PATH, sideEffects: true }] } };
    },
  };
}
