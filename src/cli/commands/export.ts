import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { DocumentStore, StoredDocument } from 'webdata-storage';
import { connectClient, type CliConnection } from '../connect.js';
import { CliError, UsageError } from '../errors.js';
import { openCliStore } from '../store-arg.js';
import { tenantRunsFor } from '../tenant-flag.js';

/**
 * A series run keeps unchanged pages as stubs (`copyOf`: the run and job holding the content):
 * the export gives the page as it is, from that copy.
 */
async function resolved(store: DocumentStore, doc: StoredDocument): Promise<StoredDocument> {
  const copy = doc.copyOf as { runId?: unknown; jobId?: unknown } | undefined;
  if (doc.markdown !== undefined || typeof copy?.runId !== 'string' || typeof copy.jobId !== 'string') return doc;
  const original = await store.getDocument(copy.runId, copy.jobId, doc.url);
  // The stub has the page's metadata; its content and the model's answers are the copy's.
  return original ? { ...original, ...doc, markdown: original.markdown, ...answersOf(original) } : doc;
}

/** The page's `json` and `summary` format answers, only those it has. */
function answersOf(doc: StoredDocument): Pick<StoredDocument, 'json' | 'summary'> {
  return { ...(doc.json !== undefined ? { json: doc.json } : {}), ...(doc.summary !== undefined ? { summary: doc.summary } : {}) };
}

/** Writes a run's documents: JSON Lines ({url, markdown, json?, summary?, metadata...}) or one markdown file. */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { format: { type: 'string' }, store: { type: 'string' }, job: { type: 'string' }, follow: { type: 'boolean' }, workflow: { type: 'string' }, tenant: { type: 'string' } },
  });
  if (values.tenant !== undefined) return exportTenant(values.tenant, positionals, values);
  const runId = positionals[0];
  const format = values.format ?? 'jsonl';
  if (!runId || positionals.length > 1) throw new UsageError('one run id is required: webdata export <run-id> [--format jsonl|markdown] [--store <folder|postgres://...>] [--job <job-id>]');
  if (format !== 'jsonl' && format !== 'markdown') throw new UsageError(`--format: "${format}" is not a format (formats: jsonl, markdown)`);
  if (values.workflow !== undefined && !values.follow) throw new UsageError('--workflow goes with --follow: webdata export <run-id> --follow [--workflow <workflow-id>]');
  // Following ends when the run's workflow has closed: connect before reading anything.
  const conn = values.follow ? await connectClient() : undefined;
  const where = openCliStore(values.store);
  const { store } = where;
  // `webdata export … | head` closes the pipe early: stop quietly instead of crashing.
  let closed = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') closed = true;
    else throw err;
  });
  try {
    let n = 0;
    try {
      const scope = values.job ? { jobId: values.job } : {};
      const docs = conn
        ? store.followDocuments(runId, { ...scope, until: workflowClosed(conn, values.workflow ?? runId), intervalMs: 500 })
        : store.readDocuments(runId, scope);
      for await (const stored of docs) {
        if (closed) break;
        const doc = await resolved(store, stored);
        n += 1;
        const line = format === 'jsonl'
          ? `${JSON.stringify({ url: doc.url, markdown: doc.markdown ?? '', ...answersOf(doc), jobId: doc.jobId, kind: doc.kind, metadata: doc.metadata })}\n`
          : `\n\n<!-- ${doc.url} -->\n\n${doc.markdown ?? ''}\n`;
        if (!process.stdout.write(line) && !closed) await new Promise((r) => { process.stdout.once('drain', r); process.stdout.once('error', r); });
      }
    } catch (err) {
      throw err instanceof CliError ? err : where.readFailure(err);
    }
    if (n === 0) {
      throw new CliError(`no documents stored for run ${runId}${values.job ? ` (job ${values.job})` : ''} in ${where.label}: check the run id (the workflow id unless input.runId was set) and that this is the store the worker wrote`);
    }
    return 0;
  } finally {
    await store.close().catch(() => {});
    await conn?.close();
  }
}

/**
 * `webdata export --tenant T`: the documents of each completed run of the tenant, newest first,
 * one `webdata export <run-id>` after the other (a run's store id is in its result).
 */
async function exportTenant(tenant: string, positionals: string[], values: { format?: string; store?: string; job?: string; follow?: boolean }): Promise<number> {
  if (positionals.length > 0 || values.job !== undefined || values.follow) {
    throw new UsageError('--tenant exports every completed run of the tenant: give no run id, --job or --follow (webdata export --tenant NAME [--format ...] [--store ...])');
  }
  const listTenantRuns = await tenantRunsFor(tenant);
  const conn = await connectClient();
  const storeIds: string[] = [];
  try {
    for (const run of await listTenantRuns(conn.client, tenant, { completedOnly: true, limit: 10_000 })) {
      const result = (await conn.client.workflow.getHandle(run.workflowId, run.runId).result()) as { runId?: unknown } | undefined;
      storeIds.push(typeof result?.runId === 'string' ? result.runId : run.workflowId);
    }
  } finally {
    await conn.close();
  }
  if (storeIds.length === 0) throw new CliError(`no completed runs of tenant ${tenant} in namespace ${conn.namespace}`);
  const flags = [...(values.format ? ['--format', values.format] : []), ...(values.store ? ['--store', values.store] : [])];
  for (const id of storeIds) {
    try {
      await exportCommand([id, ...flags]);
    } catch (err) {
      // A completed run that stored nothing (every stage skipped) is not an error here.
      if (!(err instanceof CliError && err.message.startsWith('no documents stored'))) throw err;
    }
  }
  return 0;
}

/** True once the workflow (the latest run of its chain) is no longer running. */
function workflowClosed(conn: CliConnection, workflowId: string): () => Promise<boolean> {
  return async () => {
    try {
      const { status } = await conn.client.workflow.getHandle(workflowId).describe();
      return status.name !== 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        throw new CliError(`--follow: no workflow ${workflowId} in namespace ${conn.namespace} at ${conn.address}: give the run's workflow with --workflow (the run id is the workflow id unless input.runId was set)`, 1, { cause: err });
      }
      throw err;
    }
  };
}
