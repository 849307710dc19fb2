import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { getProgress, startPipeline } from '../../client/pipeline.js';
import { PipelineInputError } from '../../workflows/input.js';
import type { PipelineResult } from '../../workflows/state.js';
import { connectClient } from '../connect.js';
import { ProgressPrinter } from '../progress-view.js';
import { inputFromFlags, runFlags } from '../run-options.js';
import { formatSummary } from '../summary.js';

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...runFlags, json: { type: 'boolean' }, 'no-wait': { type: 'boolean' } } });
  let input;
  try {
    input = inputFromFlags(positionals[0], values);
  } catch (err) {
    console.error(`webdata run: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  const { client, close } = await connectClient();
  try {
    return await runPipeline(client, input, { json: values.json, wait: !values['no-wait'], taskQueue: values['task-queue'], workflowId: values['workflow-id'] });
  } finally {
    await close();
  }
}

export async function runPipeline(
  client: Client,
  input: Parameters<typeof startPipeline>[1],
  options: { json?: boolean; wait?: boolean; taskQueue?: string; workflowId?: string; uiUrl?: string; namespace?: string },
): Promise<number> {
  let handle;
  try {
    handle = await startPipeline(client, input, { taskQueue: options.taskQueue, workflowId: options.workflowId });
  } catch (err) {
    if (err instanceof PipelineInputError) {
      for (const issue of err.issues) console.error(`webdata run: ${issue.path || '(input)'}: ${issue.message}`);
      return 2;
    }
    throw err;
  }
  if (!options.json) console.log(`started ${handle.workflowId}`);
  if (options.wait === false) {
    if (options.json) console.log(JSON.stringify({ workflowId: handle.workflowId }));
    return 0;
  }
  const printer = options.json ? undefined : new ProgressPrinter();
  let done = false;
  const poll = (async () => {
    while (!done) {
      try {
        printer?.update(await getProgress(client, handle.workflowId));
      } catch {
        // The first query can race the first workflow task; the next tick retries.
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  let result: PipelineResult;
  try {
    result = await handle.result();
  } finally {
    done = true;
    await poll;
  }
  if (options.json) console.log(JSON.stringify({ workflowId: handle.workflowId, ...result }));
  else console.log(formatSummary(result, { workflowId: handle.workflowId, uiUrl: options.uiUrl, namespace: options.namespace }));
  return result.status === 'failed' ? 1 : 0;
}
