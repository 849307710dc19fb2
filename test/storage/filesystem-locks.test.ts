// Store locks that cannot outlive their holder: failures injected inside an append (a
// throwing file layer, a full or read-only file system, a holder killed with SIGKILL, a
// lock copied with its folder) each end with the lock released and every page stored once.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, readdir, readFile, rename, rm, stat, utimes, writeFile, type FileHandle } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FilesystemStore, StoreError, type StoredDocument } from '../../packages/storage/src/index.js';
import { HOST, heldHere, isStale } from '../../packages/storage/src/fs/lock-holder.js';
import { makeDocument, range, WORKER } from './fixtures/documents.js';
import { nodeScriptArgs } from '../helpers/node-script.js';

const roots: string[] = [];
async function newRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'webdata-fs-locks-'));
  roots.push(root);
  return root;
}
const children: ChildProcess[] = [];
// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('filesystem-locks', () => {
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
  });

  /** A process that stays alive until killed: a live lock holder. */
  function liveProcess(): ChildProcess {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
    children.push(child);
    return child;
  }

  async function seqsOf(store: FilesystemStore, runId: string): Promise<number[]> {
    const out: number[] = [];
    for await (const d of store.readDocuments(runId)) out.push((d as StoredDocument).metadata.seq as number);
    return out.sort((a, b) => a - b);
  }

  async function lockFiles(dir: string): Promise<string[]> {
    return (await readdir(dir)).filter((f) => f.includes('.lock'));
  }

  const pages = (from: number, to: number) => range(from, to).map((i) => makeDocument(i));

  /** Replaces FileHandle#appendFile until restored: the throwing (or pausing) file layer. */
  async function patchAppendFile(replacement: (original: FileHandle['appendFile'], handle: FileHandle, data: unknown) => Promise<void> | undefined): Promise<() => void> {
    const probe = await open(process.execPath, 'r');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const original = proto.appendFile;
    proto.appendFile = function (this: FileHandle, data, options) {
      return replacement(original, this, data) ?? original.call(this, data, options);
    };
    return () => {
      proto.appendFile = original;
    };
  }

  function errnoError(code: string): NodeJS.ErrnoException {
    return Object.assign(new Error(`${code}: injected`), { code });
  }

  describe('FilesystemStore locks', () => {
    it('breaks a lock naming this very process under a token it does not hold (a run folder copied while locked)', async () => {
      const root = await newRoot();
      const store = new FilesystemStore({ root, lockTimeoutMs: 2_000 });
      await store.appendDocuments('run', 'job', pages(0, 2));
      await writeFile(join(root, 'run', 'documents.lock'), JSON.stringify({ pid: process.pid, host: hostname(), token: 'copied-with-the-folder' }));
      assert.equal(await store.appendDocuments('run', 'job', pages(0, 4)), 2);
      assert.deepEqual(await seqsOf(store, 'run'), range(0, 4));
      assert.deepEqual(await lockFiles(join(root, 'run')), []);
    });

    it('never breaks a lock another writer of this process is releasing (many writers, one process)', async () => {
      const root = await newRoot();
      // Each round: 8 overlapping writers in 4 store instances. A writer that read a releasing
      // holder's token and judged it foreign broke the next holder's lock (lock_lost).
      for (let round = 0; round < 20; round++) {
        const writers = Array.from({ length: 4 }, () => new FilesystemStore({ root }));
        const runId = `run-${round}`;
        const added = await Promise.all(writers.flatMap((w, k) => [0, 1].map(async (part) => {
          let n = 0;
          for (let start = k * 40 + part * 20; start < k * 40 + part * 20 + 80; start += 10) n += await w.appendDocuments(runId, 'job', pages(start, start + 10));
          return n;
        })));
        assert.equal(added.reduce((a, b) => a + b, 0), 220);
        assert.equal((await writers[0].count(runId)).documents, 220);
      }
    });

    it('waits for a live holder, then fails with a typed, retryable error naming the lock and its holder', async () => {
      const root = await newRoot();
      const store = new FilesystemStore({ root, lockTimeoutMs: 500 });
      await store.appendDocuments('run', 'job', pages(0, 1));
      const holder = liveProcess();
      const lock = join(root, 'run', 'documents.lock');
      await writeFile(lock, JSON.stringify({ pid: holder.pid, host: hostname(), token: 'live' }));
      const err = await store.appendDocuments('run', 'job', pages(1, 2)).then(() => assert.fail('expected a lock timeout'), (e: unknown) => e);
      assert.ok(err instanceof StoreError, String(err));
      assert.equal(err.kind, 'lock_timeout');
      assert.equal(err.retryable, true);
      assert.equal(err.path, lock);
      assert.match(err.message, new RegExp(`Timed out after 500 ms waiting for lock .*documents\\.lock, held by pid ${holder.pid} on `));
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
      assert.equal(await store.appendDocuments('run', 'job', pages(0, 3)), 2);
      assert.deepEqual(await seqsOf(store, 'run'), range(0, 3));
    });

    it('breaks a lock past its lease although its pid is alive (a reused pid, a hung holder)', async () => {
      const root = await newRoot();
      const store = new FilesystemStore({ root, lockTimeoutMs: 10_000, staleLockMs: 2_000 });
      await store.appendDocuments('run', 'job', pages(0, 1));
      const holder = liveProcess();
      const lock = join(root, 'run', 'documents.lock');
      await writeFile(lock, JSON.stringify({ pid: holder.pid, host: hostname(), token: 'hung' }));
      const old = new Date(Date.now() - 60_000);
      await utimes(lock, old, old);
      assert.equal(await store.appendDocuments('run', 'job', pages(0, 2)), 1);
      assert.deepEqual(await lockFiles(join(root, 'run')), []);
    });

    it('never judges a lock this process holds stale, whatever its age (a stall can delay its renewal)', async () => {
      const root = await newRoot();
      const path = join(root, 'held.lock');
      const holder = { pid: process.pid, host: HOST, token: 'held-here' };
      await writeFile(path, JSON.stringify(holder));
      const found = { holder, ageMs: 60_000 };
      assert.equal(await isStale(path, found, 2_000), true, 'a token nobody here holds, past its lease');
      heldHere.add(holder.token);
      try {
        assert.equal(await isStale(path, found, 2_000), false);
      } finally {
        heldHere.delete(holder.token);
      }
    });

    it('renews the lease while an append is slow, so a waiting writer does not break it', async () => {
      const root = await newRoot();
      // A lease of 2 s renewed every 0.5 s, held for 5 s: the lock file's time moves on while
      // it is held (a writer of this process would not break it anyway: see the test above).
      const slow = new FilesystemStore({ root, staleLockMs: 2_000, lockTimeoutMs: 30_000 });
      const waiter = new FilesystemStore({ root, staleLockMs: 2_000, lockTimeoutMs: 30_000 });
      await slow.appendDocuments('run', 'job', pages(0, 1));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const restore = await patchAppendFile((original, handle, data) => {
        if (!Buffer.isBuffer(data)) return undefined;
        restore();
        entered();
        // Holds the lock for several leases before writing.
        return held.then(() => original.call(handle, data));
      });
      try {
        const first = slow.appendDocuments('run', 'job', pages(1, 5));
        await inside;
        const lock = join(root, 'run', 'documents.lock');
        const takenAt = (await stat(lock)).mtimeMs;
        const second = waiter.appendDocuments('run', 'job', pages(3, 8));
        await new Promise((resolve) => setTimeout(resolve, 5_000)); // two and a half leases
        assert.ok((await stat(lock)).mtimeMs > takenAt, 'the lease was not renewed while the append was held');
        release();
        assert.equal(await first, 4);
        assert.equal(await second, 3);
      } finally {
        restore();
        release();
      }
      assert.deepEqual(await seqsOf(waiter, 'run'), range(0, 8));
    });

    /**
     * Appends pages 1-2 to a run holding page 0, while `takeOver` replaces the writer's lock just
     * before its data write; expects the writer fenced (`lock_lost`). Returns the run's folder.
     */
    async function appendWhileLockTaken(takeOver: (lock: string) => Promise<void>): Promise<{ root: string; lock: string }> {
      const root = await newRoot();
      const store = new FilesystemStore({ root, lockTimeoutMs: 5_000 });
      await store.appendDocuments('run', 'job', pages(0, 1));
      const lock = join(root, 'run', 'documents.lock');
      const restore = await patchAppendFile((original, handle, data) => {
        if (!Buffer.isBuffer(data)) return undefined;
        restore();
        return takeOver(lock).then(() => original.call(handle, data));
      });
      try {
        const err = await store.appendDocuments('run', 'job', pages(1, 3)).then(() => assert.fail('expected lock_lost'), (e: unknown) => e);
        assert.ok(err instanceof StoreError && err.kind === 'lock_lost', String(err));
      } finally {
        restore();
      }
      return { root, lock };
    }

    /** After the taker's lock is gone, another store finds only page 0 stored and stores the rest once. */
    async function assertNothingIndexedByFencedWriter(root: string): Promise<void> {
      const other = new FilesystemStore({ root });
      assert.equal(await other.appendDocuments('run', 'job', pages(0, 4)), 1);
      assert.deepEqual(await seqsOf(other, 'run'), range(0, 4));
      assert.deepEqual((await other.count('run')).documents, 4);
    }

    it('fences a writer whose lock was broken mid-append: it indexes nothing more, and every page ends up stored once', async () => {
      // Another writer broke this lock (its lease ran out) and holds it now.
      const { root, lock } = await appendWhileLockTaken((path) => writeFile(path, JSON.stringify({ pid: 1, host: 'another-host', token: 'breaker' })));
      // The breaker's lock is not removed by the fenced writer.
      assert.deepEqual(await lockFiles(join(root, 'run')), ['documents.lock']);
      await rm(lock);
      await assertNothingIndexedByFencedWriter(root);
    });

    it('fences a writer whose lock file was replaced by one with the same bytes (a breaker renamed it aside, another took it)', async () => {
      // Same content, another file: only the file's identity tells the writer it lost the lock.
      const { root, lock } = await appendWhileLockTaken(async (path) => {
        const bytes = await readFile(path);
        await rename(path, `${path}.aside`);
        await writeFile(path, bytes, { flag: 'wx' });
      });
      assert.deepEqual((await lockFiles(join(root, 'run'))).sort(), ['documents.lock', 'documents.lock.aside']);
      await rm(lock);
      await assertNothingIndexedByFencedWriter(root);
    });

    it('creates the run folder again when another process removed it after this store first wrote there', async () => {
      const root = await newRoot();
      const store = new FilesystemStore({ root });
      assert.equal(await store.appendDocuments('run', 'job', pages(0, 2)), 2);
      await rm(join(root, 'run'), { recursive: true });
      assert.equal(await store.appendDocuments('run', 'job', pages(2, 4)), 2);
      assert.deepEqual(await seqsOf(new FilesystemStore({ root }), 'run'), range(2, 4));
      assert.equal(await store.appendLinks('run', 'seen', [{ url: 'https://a.test/' }]), 1);
      await rm(join(root, 'run'), { recursive: true });
      assert.equal(await store.appendLinks('run', 'seen', [{ url: 'https://a.test/' }]), 1);
      const links = [];
      for await (const link of new FilesystemStore({ root }).readLinks('run', 'seen')) links.push(link.url);
      assert.deepEqual(links, ['https://a.test/']);
    });

    for (const [code, kind] of [['ENOSPC', 'no_space'], ['EACCES', 'permission'], ['EROFS', 'read_only']] as const) {
      it(`reports ${code} inside an append as ${kind}, releases the lock, and the retry stores every page once`, async () => {
        const root = await newRoot();
        const store = new FilesystemStore({ root, lockTimeoutMs: 2_000 });
        await store.appendDocuments('run', 'job', pages(0, 2));
        // Documents first, then (second round) the index right after the data went in.
        for (const target of ['data', 'index'] as const) {
          const restore = await patchAppendFile((_original, _handle, data) => {
            if (Buffer.isBuffer(data) !== (target === 'data')) return undefined;
            restore();
            return Promise.reject(errnoError(code));
          });
          const from = target === 'data' ? 2 : 4;
          try {
            const err = await store.appendDocuments('run', 'job', pages(from, from + 2)).then(() => assert.fail(`expected ${code}`), (e: unknown) => e);
            assert.ok(err instanceof StoreError, String(err));
            assert.equal(err.kind, kind);
            assert.equal(err.code, code);
            assert.equal(err.retryable, true);
          } finally {
            restore();
          }
          assert.deepEqual(await lockFiles(join(root, 'run')), [], `a lock outlived the ${code} in the ${target} write`);
          assert.equal(await store.appendDocuments('run', 'job', pages(0, from + 2)), target === 'data' ? 2 : 0);
        }
        assert.deepEqual(await seqsOf(new FilesystemStore({ root }), 'run'), range(0, 6));
        assert.equal((await new FilesystemStore({ root }).count('run')).documents, 6);
      });
    }

    it('lets a waiting writer in as soon as the holding process is killed with SIGKILL mid-append', async () => {
      const root = await newRoot();
      const child = spawn(process.execPath, [...nodeScriptArgs(WORKER), JSON.stringify({ spec: root, runId: 'run', jobId: 'job', from: 0, to: 100, batch: 100, size: 20_000, pauseMidWrite: true })], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.push(child);
      const exit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      await Promise.race([new Promise((resolve) => child.once('message', resolve)), exit]);
      const store = new FilesystemStore({ root, lockTimeoutMs: 60_000 });
      const waiting = store.appendDocuments('run', 'job', range(0, 100).map((i) => makeDocument(i, 20_000)));
      child.kill('SIGKILL');
      await exit;
      // The whole lines the killed writer got out are kept (indexed by the repair), the torn one is cut.
      const added = await waiting;
      assert.ok(added > 0 && added < 100, `added ${added}`);
      assert.deepEqual(await seqsOf(store, 'run'), range(0, 100));
      assert.equal((await store.count('run')).documents, 100);
      assert.deepEqual(await lockFiles(join(root, 'run')), []);
    });
  });

  // A real small file system, where this machine lets the test mount one (root in a container that allows it).
  function tryMount(dir: string, options: string): boolean {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }

  describe('FilesystemStore on a full or read-only file system', () => {
    it('fills a 1 MiB file system, reports no_space, and stores every page once after space is freed; then read-only', async (t) => {
      const dir = await newRoot();
      if (!tryMount(dir, 'size=1m')) return t.skip('cannot mount a tmpfs here');
      try {
        const root = join(dir, 'store');
        const store = new FilesystemStore({ root, lockTimeoutMs: 2_000 });
        await store.appendDocuments('run', 'job', pages(0, 5));
        await writeFile(join(dir, 'filler'), Buffer.alloc(900 * 1024)).catch(() => undefined);
        const big = range(5, 25).map((i) => makeDocument(i, 20_000));
        const err = await store.appendDocuments('run', 'job', big).then(() => assert.fail('expected ENOSPC'), (e: unknown) => e);
        assert.ok(err instanceof StoreError && err.kind === 'no_space', String(err));
        assert.deepEqual(await lockFiles(join(root, 'run')), []);
        await rm(join(dir, 'filler'));
        assert.equal(await store.appendDocuments('run', 'job', [...pages(0, 5), ...big]), 20);

        execFileSync('mount', ['-o', 'remount,ro', dir]);
        const ro = await store.appendDocuments('run', 'job', pages(25, 27)).then(() => assert.fail('expected EROFS'), (e: unknown) => e);
        assert.ok(ro instanceof StoreError && ro.kind === 'read_only', String(ro));
        execFileSync('mount', ['-o', 'remount,rw', dir]);
        assert.deepEqual(await lockFiles(join(root, 'run')), []);
        assert.equal(await store.appendDocuments('run', 'job', pages(24, 27)), 2);
        assert.deepEqual(await seqsOf(new FilesystemStore({ root }), 'run'), range(0, 27));
      } finally {
        execFileSync('umount', [dir]);
      }
    });
  });
});
