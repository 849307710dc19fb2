import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createStore } from 'webdata-storage';
import { CliError, oneLine, redactSpec, UsageError } from '../errors.js';

/** Which store a command reads, and where the setting came from, for every message. */
function storeOf(flag: string | undefined): { spec: string; setting: string; label: string } {
  const [spec, setting] = flag !== undefined ? [flag, '--store'] : process.env.WEBDATA_STORE ? [process.env.WEBDATA_STORE, 'WEBDATA_STORE'] : ['.data/store', 'default'];
  const isUrl = /^[a-z][a-z0-9+.-]+:/i.test(spec);
  const where = isUrl ? redactSpec(spec) : `folder ${resolve(spec)}`;
  return { spec, setting, label: `store ${where} (${setting === 'default' ? 'the default; --store or WEBDATA_STORE picks another' : `from ${setting}`})` };
}

/** Writes a run's documents: JSON Lines ({url, markdown, metadata...}) or one markdown file. */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { format: { type: 'string' }, store: { type: 'string' }, job: { type: 'string' } } });
  const runId = positionals[0];
  const format = values.format ?? 'jsonl';
  if (!runId || positionals.length > 1) throw new UsageError('one run id is required: webdata export <run-id> [--format jsonl|markdown] [--store <folder|postgres://...>] [--job <job-id>]');
  if (format !== 'jsonl' && format !== 'markdown') throw new UsageError(`--format: "${format}" is not a format (formats: jsonl, markdown)`);
  const where = storeOf(values.store);
  if (!/^[a-z][a-z0-9+.-]+:/i.test(where.spec) && !existsSync(where.spec)) {
    throw new CliError(`no ${where.label}: the folder does not exist; pass the store the worker wrote with --store (\`webdata dev\` prints it)`);
  }
  let store;
  try {
    store = createStore(where.spec, { setting: where.setting === 'default' ? 'store' : where.setting });
  } catch (err) {
    throw new UsageError(`${oneLine((err as Error).message)}`, { cause: err });
  }
  // `webdata export … | head` closes the pipe early: stop quietly instead of crashing.
  let closed = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') closed = true;
    else throw err;
  });
  try {
    let n = 0;
    try {
      for await (const doc of store.readDocuments(runId, values.job ? { jobId: values.job } : {})) {
        if (closed) break;
        n += 1;
        const line = format === 'jsonl'
          ? `${JSON.stringify({ url: doc.url, markdown: doc.markdown ?? '', jobId: doc.jobId, kind: doc.kind, metadata: doc.metadata })}\n`
          : `\n\n<!-- ${doc.url} -->\n\n${doc.markdown ?? ''}\n`;
        if (!process.stdout.write(line) && !closed) await new Promise((r) => { process.stdout.once('drain', r); process.stdout.once('error', r); });
      }
    } catch (err) {
      const pg = /^postgres/i.test(where.spec) ? ': check the URL and that PostgreSQL is running and reachable (or --store <folder>)' : '';
      throw new CliError(`cannot read ${where.label}: ${oneLine((err as Error).message)}${pg}`, 1, { cause: err });
    }
    if (n === 0) {
      throw new CliError(`no documents stored for run ${runId}${values.job ? ` (job ${values.job})` : ''} in ${where.label}: check the run id (the workflow id unless input.runId was set) and that this is the store the worker wrote`);
    }
    return 0;
  } finally {
    await store.close().catch(() => {});
  }
}
