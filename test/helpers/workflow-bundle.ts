// The package's workflows bundled once and kept on disk, keyed by a hash of their sources:
// webpack takes 10-25 s on a busy 2-core machine (over a minute under load), and every test file
// is its own process with workers of its own. Built from the TypeScript sources (workspace
// packages through the `webdata-source` condition), as the tests run.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_METRICS_PATH } from '../../src/worker/metrics.js';
import { workflowBundlerOptions } from '../../src/worker/bundler-options.js';
import { tracingWorkflowInterceptorsPath } from '../../src/worker/bundle.js';
import { FAILURE_CONVERTER_PATH } from '../../src/codec/index.js';
import { API_KEY_REF_INTERCEPTOR_PATH } from '../../src/keys/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/webdata-test-bundles');
/** The workflows' TypeScript entry, also when this file runs compiled (.test-build/, where src/ has both). */
const WORKFLOWS_SOURCE = join(ROOT, 'src/workflows/index.ts');
/** The preload beside it: the workflows share the modules it loads only when they are the same files. */
const PRELOAD_SOURCE = join(ROOT, 'src/workflows/preload.ts');

/** Sources a bundle is made of: the workflows, what they import from src/, the contract; this file (its bundler options). */
const INPUTS = ['src', 'packages/contract/src', 'package-lock.json', 'test/helpers/workflow-bundle.ts'].map((p) => join(ROOT, p));

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).sort().flatMap((name) => filesUnder(join(path, name)));
}

const built = new Map<string, Promise<string>>();

/**
 * The path of a bundle of the package's workflows with `interceptorModules` (and the failure
 * converter module `failureConverterPath`), built when missing.
 */
export function cachedWorkflowBundle(interceptorModules: string[] = [], failureConverterPath?: string): Promise<string> {
  const key = [...interceptorModules, failureConverterPath ?? ''].join('\n');
  let path = built.get(key);
  if (!path) {
    path = build(interceptorModules, failureConverterPath);
    built.set(key, path);
  }
  return path;
}

async function build(interceptorModules: string[], failureConverterPath?: string): Promise<string> {
  const hash = createHash('sha256');
  // Paths from the root: the same sources hash the same from the clone and from .test-build/<pid>/.
  for (const file of INPUTS.flatMap(filesUnder)) hash.update(relative(ROOT, file)).update(readFileSync(file));
  for (const m of interceptorModules) hash.update(`interceptor:${m}`);
  if (failureConverterPath) hash.update(`failure-converter:${failureConverterPath}`);
  const cached = join(CACHE, `workflows-${hash.digest('hex').slice(0, 16)}.js`);
  if (existsSync(cached)) return cached;
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_SOURCE,
    workflowInterceptorModules: interceptorModules,
    failureConverterPath,
    ...workflowBundlerOptions((config) => ({ ...config, resolve: { ...config.resolve, conditionNames: ['webdata-source', '...'] } }), PRELOAD_SOURCE),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: (message, meta) => console.error(message, meta ?? ''), log() {} },
  });
  return writeBundle(cached, code);
}

/** Writes a bundle to the cache whole, then renames it: a file running beside this one never reads half a bundle. */
export function writeBundle(path: string, code: string): string {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, path);
  return path;
}

/**
 * The bundle a package worker runs (createWebDataWorker): its workflows with the metrics
 * interceptor module, which a worker given a prebuilt bundle expects the bundle to carry.
 */
export function pipelineWorkflowBundle(): Promise<string> {
  return cachedWorkflowBundle([WORKFLOW_METRICS_PATH, API_KEY_REF_INTERCEPTOR_PATH]);
}

/**
 * The bundle a worker with tracing on runs (OTEL_EXPORTER_OTLP_ENDPOINT): the pipeline's, with the
 * OpenTelemetry workflow interceptors too, as `src/worker/bundle.ts` writes it for tracing.
 */
export function tracedPipelineWorkflowBundle(): Promise<string> {
  return cachedWorkflowBundle([WORKFLOW_METRICS_PATH, API_KEY_REF_INTERCEPTOR_PATH, tracingWorkflowInterceptorsPath()]);
}

/**
 * The bundle a worker with WEBDATA_PAYLOAD_KEYS runs: the pipeline's, with the encoded failure
 * converter, as `src/worker/bundle.ts` writes it when the keys are set.
 */
export function encryptedPipelineWorkflowBundle(): Promise<string> {
  return cachedWorkflowBundle([WORKFLOW_METRICS_PATH, API_KEY_REF_INTERCEPTOR_PATH], FAILURE_CONVERTER_PATH);
}
