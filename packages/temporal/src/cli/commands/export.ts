import { parseArgs } from 'node:util';
import type { DocumentStore, StoredDocument } from 'webdata-storage';
import { CliError, UsageError } from '../errors.js';
import { openCliStore } from '../store-arg.js';

/**
 * A series run keeps unchanged pages as stubs (`copyOf`: the run and job holding the content):
 * the export gives the page as it is, from that copy.
 */
async function resolved(store: DocumentStore, doc: StoredDocument): Promise<StoredDocument> {
  const copy = doc.copyOf as { runId?: unknown; jobId?: unknown } | undefined;
  if (doc.markdown !== undefined || typeof copy?.runId !== 'string' || typeof copy.jobId !== 'string') return doc;
  const original = await store.getDocument(copy.runId, copy.jobId, doc.url);
  return original ? { ...original, ...doc, markdown: original.markdown } : doc;
}

/** Writes a run's documents: JSON Lines ({url, markdown, metadata...}) or one markdown file. */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { format: { type: 'string' }, store: { type: 'string' }, job: { type: 'string' } } });
  const runId = positionals[0];
  const format = values.format ?? 'jsonl';
  if (!runId || positionals.length > 1) throw new UsageError('one run id is required: webdata export <run-id> [--format jsonl|markdown] [--store <folder|postgres://...>] [--job <job-id>]');
  if (format !== 'jsonl' && format !== 'markdown') throw new UsageError(`--format: "${format}" is not a format (formats: jsonl, markdown)`);
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
      for await (const stored of store.readDocuments(runId, values.job ? { jobId: values.job } : {})) {
        if (closed) break;
        const doc = await resolved(store, stored);
        n += 1;
        const line = format === 'jsonl'
          ? `${JSON.stringify({ url: doc.url, markdown: doc.markdown ?? '', jobId: doc.jobId, kind: doc.kind, metadata: doc.metadata })}\n`
          : `\n\n<!-- ${doc.url} -->\n\n${doc.markdown ?? ''}\n`;
        if (!process.stdout.write(line) && !closed) await new Promise((r) => { process.stdout.once('drain', r); process.stdout.once('error', r); });
      }
    } catch (err) {
      throw where.readFailure(err);
    }
    if (n === 0) {
      throw new CliError(`no documents stored for run ${runId}${values.job ? ` (job ${values.job})` : ''} in ${where.label}: check the run id (the workflow id unless input.runId was set) and that this is the store the worker wrote`);
    }
    return 0;
  } finally {
    await store.close().catch(() => {});
  }
}
