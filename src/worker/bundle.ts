// Prebuilds the workflow bundle once, so workers start without webpack:
//   node node_modules/webdata-temporal/lib/worker/bundle.js dist/workflow-bundle.js
// then run workers with WEBDATA_WORKFLOW_BUNDLE=dist/workflow-bundle.js. Built with
// OTEL_EXPORTER_OTLP_ENDPOINT set (or `{ tracing: true }`), it carries the OpenTelemetry workflow
// interceptors, which a worker that traces needs in its bundle (a prebuilt bundle is fixed).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH, payloadKeysFromEnv } from '../codec/index.js';
import { createWorkerLogger } from './logging.js';
import { WORKFLOW_METRICS_PATH } from './metrics.js';
import { API_KEY_REF_INTERCEPTOR_PATH } from '../keys/index.js';
import { workflowBundlerOptions } from './bundler-options.js';
import { WORKFLOWS_PATH } from './worker.js';

/** The OpenTelemetry workflow interceptor module a bundle for a tracing worker carries. */
export function tracingWorkflowInterceptorsPath(): string {
  return createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
}

/**
 * Writes the bundle of the package's workflows (with the metrics and key-name interceptor modules,
 * the OpenTelemetry one when `tracing`, and the encoded failure converter when
 * `encryptedPayloads`: for workers with WEBDATA_PAYLOAD_KEYS) to `outPath`; returns its size in bytes.
 */
export async function writeWorkflowBundle(outPath: string, options: { tracing?: boolean; encryptedPayloads?: boolean } = {}): Promise<number> {
  // webpack's statistics go to DEBUG (TEMPORAL_LOG_LEVEL=DEBUG shows them).
  const level = (process.env.TEMPORAL_LOG_LEVEL ?? 'INFO').toUpperCase();
  const logger = createWorkerLogger((['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].includes(level) ? level : 'INFO') as 'INFO', 'text');
  const modules = [WORKFLOW_METRICS_PATH, API_KEY_REF_INTERCEPTOR_PATH];
  if (options.tracing) modules.push(tracingWorkflowInterceptorsPath());
  const failureConverterPath = options.encryptedPayloads ? FAILURE_CONVERTER_PATH : undefined;
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: modules, failureConverterPath, logger, ...workflowBundlerOptions() });
  mkdirSync(dirname(resolve(outPath)), { recursive: true });
  writeFileSync(resolve(outPath), code);
  return code.length;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const out = resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  const bytes = await writeWorkflowBundle(out, {
    tracing: Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    // The keys themselves are not in the bundle; set, they say the workers will encrypt.
    encryptedPayloads: payloadKeysFromEnv() !== undefined,
  });
  console.log(`workflow bundle: ${out} (${(bytes / 1024).toFixed(0)} KiB)`);
}
