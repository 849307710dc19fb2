// Builds the production workflow bundle once (instead of bundling at every worker start):
//   node --import tsx scripts/bundle-workflows.ts dist/workflow-bundle.js
// then run workers with WEBDATA_WORKFLOW_BUNDLE=dist/workflow-bundle.js.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../src/worker.js';

const out = resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, code);
console.log(`workflow bundle: ${out} (${(code.length / 1024).toFixed(0)} KiB)`);
