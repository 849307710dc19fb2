import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createStore, FilesystemStore, PostgresStore, type StoredDocument } from '../../packages/storage/src/index.js';
import { makeDocument, range, urlOf, WORKER } from './fixtures/documents.js';
import { nodeScriptArgs } from '../helpers/node-script.js';
import { runStoreContract } from './store-contract.js';

const roots: string[] = [];
async function newRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'webdata-fs-store-'));
  roots.push(root);
  return root;
}
// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('filesystem-store', () => {
  after(async () => {
    await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
  });

  runStoreContract('FilesystemStore', async () => {
    const root = await newRoot();
    const store = new FilesystemStore({ root });
    return { store, spec: root, cleanup: () => store.close() };
  });

  async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
    const out: T[] = [];
    for await (const item of items) out.push(item);
    return out;
  }

  const seqs = (docs: StoredDocument[]) => docs.map((d) => d.metadata.seq as number);

  async function lines(path: string): Promise<string[]> {
    const text = await readFile(path, 'utf8');
    return text.split('\n');
  }

  describe('FilesystemStore on disk', () => {
    it('lays a run out as JSON Lines under <root>/<runId>/', async () => {
      const root = await newRoot();
      const store = new FilesystemStore({ root });
      await store.appendDocuments('run-1', 'job', [makeDocument(1), makeDocument(2)]);
      await store.appendFailures('run-1', 'job', [{ url: urlOf(3), error: 'x' }]);
      await store.appendLinks('run-1', 'map', [{ url: urlOf(1) }]);
      const files = (await readdir(join(root, 'run-1'))).sort();
      assert.deepEqual(files, ['documents.idx', 'documents.jsonl', 'failures.idx', 'failures.jsonl', 'links-map.idx', 'links-map.jsonl']);
      const docLines = await lines(join(root, 'run-1', 'documents.jsonl'));
      assert.equal(docLines.length, 3);
      assert.equal(docLines[2], '');
      assert.equal((JSON.parse(docLines[0]) as StoredDocument).url, urlOf(1));
    });

    it('encodes run ids and list names that are not plain file names', async () => {
      const root = await newRoot();
      const store = new FilesystemStore({ root });
      const odd = ['../escape', 'wf/example.com/2024', '.hidden', 'ünï 😀', '~tilde'];
      for (const runId of odd) {
        await store.appendDocuments(runId, 'job', [makeDocument(1)]);
        await store.appendLinks(runId, '../list/😀', [{ url: urlOf(1) }]);
      }
      const dirs = await readdir(root);
      assert.equal(dirs.length, odd.length);
      for (const dir of dirs) assert.match(dir, /^~[A-Za-z0-9_-]+$/);
      assert.deepEqual((await store.listRuns()).map((r) => r.runId).sort(), [...odd].sort());
      for (const runId of odd) assert.deepEqual(await store.count(runId), { documents: 1, failures: 0, links: 1 });
    });

    it('ignores a torn last line (a writer killed mid-write) and repairs it on the next append', async () => {
      const root = await newRoot();
      const writer = new FilesystemStore({ root });
      await writer.appendDocuments('run', 'job', range(0, 5).map((i) => makeDocument(i)));
      const data = join(root, 'run', 'documents.jsonl');
      // What a SIGKILL in the middle of writing page 5 leaves behind.
      const torn = JSON.stringify({ ...makeDocument(5), jobId: 'job', storedAt: new Date().toISOString() }).slice(0, 57);
      await appendFile(data, torn);

      const reader = new FilesystemStore({ root });
      assert.deepEqual(seqs(await collect(reader.readDocuments('run'))), range(0, 5));
      assert.deepEqual(await reader.count('run'), { documents: 5, failures: 0, links: 0 });
      assert.equal(await reader.getDocument('run', 'job', urlOf(5)), undefined); // half a line is no document
      assert.equal((await reader.getDocument('run', 'job', urlOf(4)))?.metadata.seq, 4);
      // The retried page: 5 was never stored, so it is new like 6; 3 and 4 are not.
      assert.equal(await reader.appendDocuments('run', 'job', range(3, 7).map((i) => makeDocument(i))), 2);
      assert.deepEqual(seqs(await collect(reader.readDocuments('run'))), range(0, 7));
      const all = await lines(data);
      assert.equal(all.pop(), '');
      for (const line of all) JSON.parse(line); // every line whole again
      assert.equal((await writer.getDocument('run', 'job', urlOf(5)))?.metadata.seq, 5);
      // The first writer's memory is stale but its appends stay exact.
      assert.equal(await writer.appendDocuments('run', 'job', range(0, 8).map((i) => makeDocument(i))), 1);
      assert.deepEqual(await writer.count('run'), { documents: 8, failures: 0, links: 0 });
    });

    it('indexes lines a writer wrote but was killed before indexing', async () => {
      const root = await newRoot();
      const store = new FilesystemStore({ root });
      await store.appendDocuments('run', 'job', [makeDocument(0)]);
      const orphan = `${JSON.stringify({ ...makeDocument(1), jobId: 'job', storedAt: new Date().toISOString() })}\n`;
      await appendFile(join(root, 'run', 'documents.jsonl'), orphan);
      // A torn index line as well.
      await appendFile(join(root, 'run', 'documents.idx'), '["abc",12');

      // Found before anything indexes it: by a new instance and by the one that knew the run.
      const fresh = new FilesystemStore({ root });
      const [, orphaned] = await collect(fresh.readDocuments('run'));
      assert.deepEqual(await fresh.getDocument('run', 'job', urlOf(1)), orphaned);
      assert.deepEqual(await store.getDocument('run', 'job', urlOf(1)), orphaned);
      assert.equal(await fresh.getDocument('run', 'job', urlOf(2)), undefined);
      assert.deepEqual(await fresh.count('run'), { documents: 2, failures: 0, links: 0 });
      assert.equal(await fresh.appendDocuments('run', 'job', [makeDocument(1), makeDocument(2)]), 1);
      assert.deepEqual(seqs(await collect(fresh.readDocuments('run'))), [0, 1, 2]);
      // Once indexed by the append, the same bytes are found through the index.
      assert.deepEqual(await fresh.getDocument('run', 'job', urlOf(1)), orphaned);
      assert.deepEqual(await new FilesystemStore({ root }).getDocument('run', 'job', urlOf(1)), orphaned);
      assert.equal((await store.getDocument('run', 'job', urlOf(2)))?.metadata.seq, 2);
      const index = await lines(join(root, 'run', 'documents.idx'));
      assert.equal(index.length, 4);
      for (const line of index.slice(0, 3)) JSON.parse(line);
      assert.deepEqual(await new FilesystemStore({ root }).count('run', { jobId: 'job' }), { documents: 3, failures: 0, links: 0 });
    });

    it('stays exact when writer processes are killed with SIGKILL mid-write', async (t) => {
      const root = await newRoot();
      const data = join(root, 'run', 'documents.jsonl');
      const total = 300;
      const size = 100_000; // 100 documents = one 10 MB append, written in several chunks
      const jobs: string[] = [];
      let tornSeen = 0;
      // Two writers, each killed while its append is half written (the worker pauses there).
      for (let round = 0; round < 2; round++) {
        const jobId = `job-${round}`;
        jobs.push(jobId);
        // A job of its own per round: there is always more to write when the kill comes.
        const child = spawn(process.execPath, [...nodeScriptArgs(WORKER), JSON.stringify({ spec: root, runId: 'run', jobId, from: 0, to: total, batch: 100, size, loop: true, pauseMidWrite: true })], {
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        });
        const exit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
        try {
          await Promise.race([new Promise((resolve) => child.once('message', resolve)), exit]);
        } finally {
          child.kill('SIGKILL');
          await exit;
        }
        const bytes = await readFile(data);
        if (bytes[bytes.length - 1] !== 0x0a) tornSeen++;
      }
      t.diagnostic(`writers killed with a torn last line: ${tornSeen} of ${jobs.length}`);
      assert.equal(tornSeen, jobs.length, 'a kill did not land mid-write');
      const store = new FilesystemStore({ root });
      for (const jobId of jobs) {
        const stored = (await store.count('run', { jobId })).documents;
        assert.equal(await store.appendDocuments('run', jobId, range(0, total).map((i) => makeDocument(i, size))), total - stored);
        assert.deepEqual(seqs(await collect(store.readDocuments('run', { jobId }))).sort((a, b) => a - b), range(0, total));
      }
      assert.deepEqual(await store.count('run'), { documents: total * jobs.length, failures: 0, links: 0 });
    });

    it('takes over a lock left by a dead process and times out on a live one', async () => {
      const root = await newRoot();
      const store = new FilesystemStore({ root, lockTimeoutMs: 300 });
      await store.appendDocuments('run', 'job', [makeDocument(0)]);
      const lock = join(root, 'run', 'documents.lock');
      const dead = spawn(process.execPath, ['-e', '']);
      await new Promise((resolve) => dead.on('exit', resolve));
      await writeFile(lock, JSON.stringify({ pid: dead.pid, host: (await import('node:os')).hostname(), token: 'dead' }));
      assert.equal(await store.appendDocuments('run', 'job', [makeDocument(1)]), 1);

      const live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
      try {
        await writeFile(lock, JSON.stringify({ pid: live.pid, host: (await import('node:os')).hostname(), token: 'someone-else' }));
        await assert.rejects(() => store.appendDocuments('run', 'job', [makeDocument(2)]), /Timed out after 300 ms waiting for lock .*documents\.lock, held by pid \d+/);
      } finally {
        live.kill('SIGKILL');
      }
      await rm(lock);
      assert.equal(await store.appendDocuments('run', 'job', [makeDocument(2)]), 1);
    });
  });

  describe('createStore', () => {
    it('opens a folder path or file: URL as a FilesystemStore', async () => {
      const root = await newRoot();
      const store = createStore(root);
      assert.ok(store instanceof FilesystemStore);
      assert.equal(store.kind, 'fs');
      assert.equal((createStore(`file://${root}`) as FilesystemStore).root, root);
      assert.ok(createStore('relative/data') instanceof FilesystemStore);
    });

    it('opens postgres:// and postgresql:// URLs as a PostgresStore, schema from ?schema=', async () => {
      const a = createStore('postgres://user:secret@127.0.0.1:1/db?schema=my_schema');
      assert.ok(a instanceof PostgresStore);
      assert.equal(a.kind, 'postgres');
      assert.equal(a.schema, 'my_schema');
      const b = createStore('postgresql://127.0.0.1/db');
      assert.equal((b as PostgresStore).schema, 'webdata');
      await Promise.all([a.close(), b.close()]);
    });

    it('rejects an invalid spec naming the setting, without echoing a password', () => {
      assert.throws(() => createStore(''), /WEBDATA_STORE is empty/);
      assert.throws(() => createStore('  ', { setting: 'MY_STORE' }), /MY_STORE is empty/);
      assert.throws(() => createStore('mysql://u:p@host/db'), /WEBDATA_STORE uses unsupported scheme "mysql:"/);
      assert.throws(() => createStore('https://example.com/x'), /unsupported scheme "https:"/);
      assert.throws(
        () => createStore('postgres://u:hunter2@127.0.0.1/db?schema=bad-name', { setting: 'WEBDATA_STORE' }),
        (err: Error) => /WEBDATA_STORE: PostgreSQL schema name/.test(err.message) && !err.message.includes('hunter2'),
      );
      assert.throws(
        () => createStore('postgres://u:hunter2@[bad/db'),
        (err: Error) => /WEBDATA_STORE is not a valid PostgreSQL URL/.test(err.message) && !err.message.includes('hunter2'),
      );
    });
  });
});
