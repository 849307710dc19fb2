import { parseArgs } from 'node:util';
import { createStore } from 'webdata-storage';

/** Writes a run's documents: JSON Lines ({url, markdown, metadata...}) or one markdown file. */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { format: { type: 'string' }, store: { type: 'string' }, job: { type: 'string' } } });
  const runId = positionals[0];
  const format = values.format ?? 'jsonl';
  if (!runId || (format !== 'jsonl' && format !== 'markdown')) {
    console.error('usage: webdata export <run-id> [--format jsonl|markdown] [--store <folder|postgres://...>] [--job <job-id>]');
    return 2;
  }
  const store = await createStore(values.store ?? process.env.WEBDATA_STORE ?? '.data/store');
  // `webdata export … | head` closes the pipe early: stop quietly instead of crashing.
  let closed = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') closed = true;
    else throw err;
  });
  try {
    let n = 0;
    for await (const doc of store.readDocuments(runId, values.job ? { jobId: values.job } : {})) {
      if (closed) break;
      n += 1;
      const line = format === 'jsonl'
        ? `${JSON.stringify({ url: doc.url, markdown: doc.markdown ?? '', jobId: doc.jobId, kind: doc.kind, metadata: doc.metadata })}\n`
        : `\n\n<!-- ${doc.url} -->\n\n${doc.markdown ?? ''}\n`;
      if (!process.stdout.write(line) && !closed) await new Promise((r) => { process.stdout.once('drain', r); process.stdout.once('error', r); });
    }
    if (n === 0) {
      console.error(`webdata export: no documents stored for run ${runId}`);
      return 1;
    }
    return 0;
  } finally {
    await store.close();
  }
}
