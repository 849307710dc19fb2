// A Temporal dev server on loopback (the CLI found or built by src/devserver, as the embedded
// stack does), the webhook receiver that signals workflows, and a prebuilt workflow bundle so
// worker processes start fast and their memory is not the bundler's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { resolveTemporalCli } from '../../src/devserver/index.js';
import { SEARCH_ATTRIBUTES } from '../../src/search-attributes.js';
import { startWebhookServer, type WebhookServer } from '../../src/webhooks/index.js';
import { writeWorkflowBundle } from '../../src/worker/bundle.js';

export interface BenchTemporal {
  env: TestWorkflowEnvironment;
  client: Client;
  address: string;
  namespace: string;
  webhook: WebhookServer;
  /** Path of the prebuilt workflow bundle (WEBDATA_WORKFLOW_BUNDLE). */
  bundlePath: string;
  close(): Promise<void>;
}

export interface BenchTemporalOptions {
  /** Secret the service signs webhooks with. */
  webhookSecret: string;
  /** Extra `temporal server start-dev` args, e.g. dynamic config values. */
  extraArgs?: string[];
  log?: (line: string) => void;
}

let runtimeInstalled = false;

export async function startBenchTemporal(options: BenchTemporalOptions): Promise<BenchTemporal> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    Runtime.install({ logger: new DefaultLogger((process.env.TEMPORAL_LOG_LEVEL ?? 'ERROR') as 'ERROR') });
  }
  const cli = await resolveTemporalCli({ log: options.log });
  const dir = mkdtempSync(join(tmpdir(), 'webdata-bench-bundle-'));
  const bundlePath = join(dir, 'workflow-bundle.js');
  // The bundle users build (writeWorkflowBundle, `npm run bundle`): with the metrics interceptor.
  await writeWorkflowBundle(bundlePath);

  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli.executable,
      ip: '127.0.0.1',
      ui: false,
      searchAttributes: SEARCH_ATTRIBUTES,
      extraArgs: options.extraArgs,
      log: { format: 'pretty', level: 'error' },
    },
  });
  let webhook: WebhookServer;
  try {
    webhook = await startWebhookServer({ client: env.client, secret: options.webhookSecret || undefined, allowUnsigned: !options.webhookSecret });
  } catch (err) {
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    env,
    client: env.client,
    address: env.address,
    namespace: env.namespace ?? 'default',
    webhook,
    bundlePath,
    async close() {
      await webhook.close();
      await env.teardown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
