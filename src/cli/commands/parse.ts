// `webdata parse <file>...`: a parseDocuments run over files the worker can read, with live
// progress and a summary (parsed, failed with their errors, skipped, credits).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { getParseProgress, startParseDocuments } from '../../client/parse-documents.js';
import type { ParseDocumentsInput } from '../../workflows/parse-documents-input.js';
import { ParseDocumentsInputError, parseParseDocumentsInput } from '../../workflows/parse-documents-input.js';
import type { ParseDocumentsProgress, ParseDocumentsResult } from '../../workflows/parse-documents.js';
import { connectClient } from '../connect.js';
import { CliError, oneLine, UsageError } from '../errors.js';
import { runLink, temporalUiUrl } from '../ui-link.js';

const FLAGS = {
  budget: { type: 'string' },
  concurrency: { type: 'string' },
  attempts: { type: 'string' },
  formats: { type: 'string' },
  'run-id': { type: 'string' },
  'task-queue': { type: 'string' },
  'workflow-id': { type: 'string' },
  json: { type: 'boolean' },
  'no-wait': { type: 'boolean' },
} as const;

function integer(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag}: must be a whole number, got "${value}"`);
  return Number(value);
}

/** The input the flags describe; relative paths are made absolute here (the worker needs them so). */
export function parseCommandInput(argv: string[]): { input: ParseDocumentsInput; values: { json?: boolean; 'no-wait'?: boolean; 'task-queue'?: string; 'workflow-id'?: string } } {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: FLAGS });
  if (positionals.length === 0) throw new UsageError('name at least one file to parse (see webdata parse --help)');
  const budget = integer('budget', values.budget);
  const concurrency = integer('concurrency', values.concurrency);
  const attempts = integer('attempts', values.attempts);
  const input: ParseDocumentsInput = {
    files: positionals.map((p) => resolve(p)),
    ...(values.formats ? { options: { formats: values.formats.split(',').map((f) => f.trim()).filter(Boolean) as never } } : {}),
    ...(values['run-id'] ? { runId: values['run-id'] } : {}),
    ...(budget !== undefined ? { budget: { credits: budget } } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(attempts !== undefined ? { maxAttempts: attempts } : {}),
  };
  return { input, values };
}

function progressLine(p: ParseDocumentsProgress): string {
  const c = p.credits;
  return `parse · ${p.status} · ${p.done} done · ${p.failed} failed · ${p.skipped} skipped · ${p.running} running of ${p.total} files · ${c.spent}${c.budget === null ? '' : `/${c.budget}`} credits`;
}

export function formatParseSummary(result: ParseDocumentsResult, workflowId: string, link?: string): string {
  const c = result.credits;
  const lines = [
    `run ${workflowId}: ${result.status} · ${result.done} of ${result.total} files parsed · ${result.failed} failed · ${result.skipped} skipped · ${c.spent}${c.budget === null ? '' : ` of ${c.budget}`} credits`,
    ...result.failures.map((f) => `  failed   ${f.path} · ${f.error} (${f.code})`),
    ...(result.failed > result.failures.length ? [`  failed   ... ${result.failed - result.failures.length} more in the store`] : []),
    ...c.events.map((e) => `  stopped  ${e}`),
    `  store    run ${result.runId}: a document per parsed file, a failure per failed one (webdata export ${result.runId})`,
  ];
  if (link) lines.push(`Temporal UI: ${link}`);
  return lines.join('\n');
}

function validated(input: ParseDocumentsInput): void {
  try {
    parseParseDocumentsInput(input);
  } catch (err) {
    if (err instanceof ParseDocumentsInputError) {
      throw new UsageError(`invalid input: ${err.issues.map((i) => `${i.path || '(input)'}: ${i.message}`).join('; ')}`, { cause: err });
    }
    throw err;
  }
}

export async function parseCommand(argv: string[]): Promise<number> {
  const { input, values } = parseCommandInput(argv);
  // Bad input is a usage error before anything connects.
  validated(input);
  const { client, address, namespace, close } = await connectClient();
  try {
    const handle = await startParseDocuments(client, input, { taskQueue: values['task-queue'], workflowId: values['workflow-id'] });
    const id = handle.workflowId;
    const ui = temporalUiUrl(address);
    const link = ui ? runLink(ui, namespace, id) : undefined;
    if (values['no-wait']) {
      console.log(values.json ? JSON.stringify({ workflowId: id, ...(link ? { uiUrl: link } : {}) }) : `started ${id}`);
      return 0;
    }
    if (!values.json) console.log(`started ${id}`);
    let done = false;
    let wake: () => void = () => {};
    let last = '';
    const poll = (async () => {
      while (!done) {
        try {
          const line = progressLine(await getParseProgress(client, id));
          if (line !== last && !values.json) console.log(line);
          last = line;
        } catch {
          // The first query can race the first workflow task; the next tick retries.
        }
        await new Promise<void>((r) => { const t = setTimeout(r, 500); wake = () => { clearTimeout(t); r(); }; });
      }
    })();
    let result: ParseDocumentsResult;
    try {
      result = await handle.result();
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        const how = err.cause instanceof CancelledFailure ? 'was cancelled' : `failed: ${oneLine(err.cause?.message ?? err.message)}`;
        throw new CliError(`run ${id} ${how}`, 1, { cause: err });
      }
      throw err;
    } finally {
      done = true;
      wake();
      await poll;
    }
    console.log(values.json ? JSON.stringify({ workflowId: id, ...(link ? { uiUrl: link } : {}), ...result }) : formatParseSummary(result, id, link));
    return result.status === 'failed' ? 1 : 0;
  } finally {
    await close();
  }
}
