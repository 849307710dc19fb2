// Starts a real Temporal dev server (`temporal server start-dev`) for a test file.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { resolveTemporalCli } from '../../src/devserver/index.js';
import { createLocalTestEnvironment } from '../../src/devserver/local-env.js';
import { SEARCH_ATTRIBUTES } from '../../src/search-attributes.js';

let runtimeInstalled = false;

/** Keeps SDK logs to warnings so test output stays readable (TEMPORAL_LOG_LEVEL overrides). */
export function quietTemporalLogs(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (process.env.TEMPORAL_LOG_LEVEL ?? 'WARN') as 'WARN';
  Runtime.install({ logger: new DefaultLogger(level) });
}

export async function startTestTemporal(options: { ui?: boolean; dbFilename?: string } = {}): Promise<TestWorkflowEnvironment> {
  quietTemporalLogs();
  const cli = await resolveTemporalCli();
  return createLocalTestEnvironment({
    httpPort: 'free',
    server: {
      executable: cli.executable,
      ip: '127.0.0.1',
      searchAttributes: SEARCH_ATTRIBUTES,
      ui: options.ui ?? false,
      dbFilename: options.dbFilename,
      log: { format: 'pretty', level: 'error' },
    },
  });
}
