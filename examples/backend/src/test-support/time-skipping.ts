// The time-skipping test environment of the example's tests. The SDK downloads Temporal's
// test server on first use; offline (or to use one you already have), set
// TEMPORAL_TEST_SERVER_PATH to a test server executable: the repository's
// scripts/ensure-test-server.sh prints one, cached under ~/.cache/webdata-temporal.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

/** A loaded machine can miss the SDK's few seconds for the server's start: a start is tried again. */
const START_ATTEMPTS = 3;

export async function startTimeSkipping(env: Record<string, string | undefined> = process.env): Promise<TestWorkflowEnvironment> {
  const path = env.TEMPORAL_TEST_SERVER_PATH || undefined;
  try {
    // Warnings and errors only: each worker's state changes are INFO lines.
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // The process installed its runtime already.
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping(path ? { server: { executable: { type: 'existing-path', path } } } : {});
    } catch (err) {
      if (attempt >= START_ATTEMPTS) throw err;
    }
  }
}
