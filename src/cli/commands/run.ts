import { parseArgs } from 'node:util';
import { CancelledFailure, WorkflowFailedError, type Client } from '@temporalio/client';
import { getProgress, startPipeline, type PipelineHandle } from '../../client/pipeline.js';
import { PipelineInputError } from '../../workflows/input.js';
import { apiKeyResolverFromEnv } from '../../keys/check.js';
import type { PipelineResult } from '../../workflows/state.js';
import { connectClient } from '../connect.js';
import { CliError, oneLine, UsageError } from '../errors.js';
import { ProgressPrinter } from '../progress-view.js';
import { runFlags, validatedInput } from '../run-options.js';
import { formatSummary } from '../summary.js';
import { runLink, temporalUiUrl } from '../ui-link.js';

/** Exit code of `webdata run` when Ctrl-C stops following (the run goes on). */
export const EXIT_INTERRUPTED = 130;

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...runFlags, json: { type: 'boolean' }, 'no-wait': { type: 'boolean' } } });
  if (positionals.length > 1) throw new UsageError(`one start URL, got ${positionals.length}: ${positionals.join(' ')} (quote values with spaces; see webdata run --help)`);
  const input = validatedInput(positionals[0], values);
  if (values['dry-run']) {
    console.log(JSON.stringify(input, null, 2));
    return 0;
  }
  const { client, address, namespace, close } = await connectClient();
  try {
    return await runPipeline(client, input, {
      json: values.json,
      wait: !values['no-wait'],
      taskQueue: values['task-queue'],
      workflowId: values['workflow-id'],
      uiUrl: temporalUiUrl(address),
      namespace,
      interruptible: true,
    });
  } finally {
    await close();
  }
}

export async function runPipeline(
  client: Client,
  input: Parameters<typeof startPipeline>[1],
  options: {
    json?: boolean; wait?: boolean; taskQueue?: string; workflowId?: string; uiUrl?: string; namespace?: string;
    /** Ctrl-C stops following, says how to follow or cancel the run that goes on, and returns 130. */
    interruptible?: boolean;
  },
): Promise<number> {
  let handle;
  try {
    // With the worker's WEBDATA_API_KEYS here too, an unknown key name is refused before the run starts.
    handle = await startPipeline(client, input, { taskQueue: options.taskQueue, workflowId: options.workflowId, apiKeys: apiKeyResolverFromEnv() });
  } catch (err) {
    if (err instanceof PipelineInputError) {
      throw new UsageError(`invalid input: ${err.issues.map((i) => `${i.path || '(input)'}: ${i.message}`).join('; ')}`, { cause: err });
    }
    throw err;
  }
  const id = handle.workflowId;
  const link = options.uiUrl ? runLink(options.uiUrl, options.namespace ?? 'default', id) : undefined;
  if (!options.json) {
    console.log(`started ${id}`);
    if (link) console.log(`Temporal UI: ${link}`);
  }
  if (options.wait === false) {
    if (options.json) console.log(JSON.stringify({ workflowId: id, ...(link ? { uiUrl: link } : {}) }));
    return 0;
  }
  const result = await follow(client, handle, { printer: options.json ? undefined : new ProgressPrinter(), interruptible: options.interruptible });
  if (result === 'interrupted') {
    console.error(`webdata run: stopped following ${id}; the run goes on. Follow it: webdata status ${id} · cancel it: webdata cancel ${id}`);
    return EXIT_INTERRUPTED;
  }
  if (options.json) console.log(JSON.stringify({ workflowId: id, ...(link ? { uiUrl: link } : {}), ...result }));
  else console.log(formatSummary(result, { workflowId: id, uiUrl: options.uiUrl, namespace: options.namespace }));
  return result.status === 'failed' ? 1 : 0;
}

/**
 * Prints the run's progress every 500 ms until it ends, and returns its result; with
 * `interruptible`, Ctrl-C stops following and returns 'interrupted' (the run goes on).
 */
async function follow(
  client: Client,
  handle: PipelineHandle,
  options: { printer?: ProgressPrinter; interruptible?: boolean },
): Promise<PipelineResult | 'interrupted'> {
  const id = handle.workflowId;
  let done = false;
  let wake: () => void = () => {};
  const poll = (async () => {
    while (!done) {
      try {
        options.printer?.update(await getProgress(client, id));
      } catch {
        // The first query can race the first workflow task; the next tick retries.
      }
      await new Promise<void>((r) => { const t = setTimeout(r, 500); wake = () => { clearTimeout(t); r(); }; });
    }
  })();

  let onSigint: (() => void) | undefined;
  // Ctrl-C also ends the result's long poll: the server holds it up to 20 s, and the process
  // cannot exit while a call is open on its connection.
  const following = new AbortController();
  const interrupted = new Promise<'interrupted'>((resolve) => {
    if (!options.interruptible) return;
    onSigint = () => {
      resolve('interrupted');
      following.abort();
    };
    process.once('SIGINT', onSigint);
  });
  try {
    return await Promise.race([client.withAbortSignal(following.signal, () => handle.result()), interrupted]);
  } catch (err) {
    if (following.signal.aborted) return 'interrupted';
    if (err instanceof WorkflowFailedError) {
      const how = err.cause instanceof CancelledFailure ? 'was cancelled' : `failed: ${oneLine(err.cause?.message ?? err.message)}`;
      throw new CliError(`run ${id} ${how} (\`webdata status ${id}\` shows each stage)`, 1, { cause: err });
    }
    throw err;
  } finally {
    done = true;
    wake();
    if (onSigint) process.removeListener('SIGINT', onSigint);
    await poll;
  }
}
