// One embedded stack (Temporal dev server, local service + demo site, worker, webhook receiver)
// per test file, plus helpers to run pipelines on it and inspect the store and the service.
import type { DevStack, DevStackOptions } from '../../src/cli/dev-stack.js';
import { startDevStack } from '../../src/cli/dev-stack.js';
import { startPipeline } from '../../src/client/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { quietTemporalLogs } from './temporal.js';
import { pipelineWorkflowBundle } from './workflow-bundle.js';

export async function startStack(options: DevStackOptions = {}): Promise<DevStack> {
  quietTemporalLogs();
  // Workers of test files start from one bundle kept on disk instead of running webpack each.
  return startDevStack({ ui: false, sitePages: 60, workflowBundlePath: await pipelineWorkflowBundle(), ...options });
}

/**
 * How often a test's run polls its jobs unless its input says: from 200 ms, backing off to 1 s
 * (the default backs off to 30 s, so a run without webhooks could see a finished job half a
 * minute late). What a test asserts does not depend on it; only how soon the run goes on.
 */
export const TEST_POLLING = { minIntervalMs: 200, maxIntervalMs: 1_000 } as const;

let counter = 0;
export async function runToEnd(stack: DevStack, input: PipelineInput, id = `t-${Date.now()}-${++counter}`): Promise<{ id: string; result: PipelineResult }> {
  const handle = await startPipeline(stack.temporal.client, { polling: TEST_POLLING, ...input }, { taskQueue: stack.taskQueue, workflowId: id });
  return { id, result: await handle.result() };
}

/** Stored documents of a run: urls (with duplicates, if any) per job. */
export async function storedUrls(stack: DevStack, runId: string, kinds: string[] = ['crawl', 'batch']): Promise<string[]> {
  const urls: string[] = [];
  for await (const doc of stack.store.readDocuments(runId)) if (kinds.includes(doc.kind)) urls.push(doc.url);
  return urls;
}

/** Jobs of an endpoint the service recorded for the team since `since` (the service's own list). */
export async function jobsStarted(stack: DevStack, endpoint: 'crawl' | 'batch_scrape', since: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await stack.api.listActivity({ endpoint, limit: 100, cursor });
    ids.push(...page.data.filter((e) => Date.parse(e.created_at) >= since - 1000).map((e) => e.id));
    if (!page.has_more || !page.cursor) return ids;
    cursor = page.cursor;
  }
}
