// Prebuilds the workflow bundle once, so workers start without webpack:
//   node node_modules/webdata-temporal/lib/worker/bundle.js dist/workflow-bundle.js
// then run workers with WEBDATA_WORKFLOW_BUNDLE=dist/workflow-bundle.js.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_METRICS_PATH } from './metrics.js';
import { WORKFLOWS_PATH } from './worker.js';

/**
 * Writes the bundle of the package's workflows (with the metrics interceptor module) to
 * `outPath`; returns its size in bytes.
 */
export async function writeWorkflowBundle(outPath: string): Promise<number> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [WORKFLOW_METRICS_PATH] });
  mkdirSync(dirname(resolve(outPath)), { recursive: true });
  writeFileSync(resolve(outPath), code);
  return code.length;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const out = resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  const bytes = await writeWorkflowBundle(out);
  console.log(`workflow bundle: ${out} (${(bytes / 1024).toFixed(0)} KiB)`);
}
