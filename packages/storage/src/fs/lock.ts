// A cross-process lock file (O_EXCL create), for the short check-and-append of a log.
// It cannot outlive its holder: released on every error path; a lock whose holder is gone
// (see lock-holder.ts) is broken and taken over; the holder renews its lease while it
// works, and checks it still holds the lock before each write (fencing), so a writer whose
// lock was broken meanwhile writes nothing. Waiting is bounded and ends in a typed error.
import { randomBytes } from 'node:crypto';
import { link, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { StoreError, toStoreError } from '../errors.js';
import { describeHolder, errno, heldHere, HOST, isStale, readLock, type Holder } from './lock-holder.js';

export interface LockOptions {
  /** Give up waiting after this long. */
  timeoutMs: number;
  /** The holder's lease: renewed while held; a lock not renewed for this long is abandoned. */
  staleMs: number;
}

/** Handed to the work done under the lock. */
export interface LockGuard {
  /** Throws a `lock_lost` StoreError unless this writer still holds the lock: call before each write. */
  assertHeld(): Promise<void>;
}

/**
 * Removes an abandoned lock. It is first renamed aside so that only one breaker wins;
 * if what was renamed turns out to be a fresh lock (someone broke and re-took it in
 * between), it is linked back into place.
 */
async function breakLock(path: string, staleToken: string | undefined): Promise<void> {
  const aside = `${path}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(path, aside);
  } catch (err) {
    if (errno(err) === 'ENOENT') return;
    throw err;
  }
  const moved = await readLock(aside);
  if (moved?.holder && moved.holder.token !== staleToken) {
    await link(aside, path).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

/** A lock file this writer created and keeps open while it holds it. */
interface HeldFile {
  handle: FileHandle;
  /** Its inode: while the handle is open no other file can take that number. */
  ino: number;
  dev: number;
  /** What this writer wrote into it. */
  content: Buffer;
}

async function tryCreate(path: string, holder: Holder): Promise<HeldFile | null> {
  let handle;
  try {
    // Read and write: `holds` reads it back through this handle.
    handle = await open(path, 'wx+');
  } catch (err) {
    if (errno(err) === 'EEXIST') return null;
    throw err;
  }
  try {
    const content = Buffer.from(JSON.stringify(holder));
    await handle.writeFile(content);
    const { ino, dev } = await handle.stat();
    return { handle, ino, dev, content };
  } catch (err) {
    // A full disk fails here: leave no empty lock behind.
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw err;
  }
}

/**
 * Whether the file at `path` is still this writer's lock: the same file (a breaker renames it
 * aside and a new holder creates another) holding what this writer wrote (nothing rewrote it in
 * place). Two reads, without opening the file again.
 */
async function holds(path: string, held: HeldFile): Promise<boolean> {
  const buffer = Buffer.alloc(held.content.length + 1);
  const [found, read] = await Promise.all([
    stat(path).catch((err: unknown) => {
      if (errno(err) === 'ENOENT') return null;
      throw err;
    }),
    held.handle.read(buffer, 0, buffer.length, 0),
  ]);
  return found !== null && found.ino === held.ino && found.dev === held.dev
    && read.bytesRead === held.content.length && buffer.subarray(0, read.bytesRead).equals(held.content);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function acquire(path: string, options: LockOptions, holder: Holder): Promise<HeldFile> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = 1;
  for (;;) {
    const held = await tryCreate(path, holder);
    if (held) return held;
    const found = await readLock(path);
    if (found && (await isStale(path, found, options.staleMs))) {
      await breakLock(path, found.holder?.token);
      continue;
    }
    if (Date.now() > deadline) {
      throw new StoreError('lock_timeout', `Timed out after ${options.timeoutMs} ms waiting for lock ${path}, held by ${describeHolder(found)}`, path);
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
}

/** Runs `fn` while holding the lock file at `path` (its folder must exist). */
export async function withFileLock<T>(path: string, options: LockOptions, fn: (guard: LockGuard) => Promise<T>): Promise<T> {
  const holder: Holder = { pid: process.pid, host: HOST, token: randomBytes(9).toString('base64url') };
  // Marked held before the file exists, so this process never judges its own fresh lock stale.
  heldHere.add(holder.token);
  try {
    const held = await acquire(path, options, holder).catch((err: unknown) => {
      throw toStoreError(err, path);
    });
    const renew = setInterval(() => {
      void holds(path, held)
        .then((still) => (still ? held.handle.utimes(new Date(), new Date()) : undefined))
        .catch(() => undefined);
    }, Math.max(10, options.staleMs / 4));
    renew.unref();
    try {
      return await fn({
        assertHeld: async () => {
          if (await holds(path, held)) return;
          throw new StoreError('lock_lost', `Lost lock ${path}: its lease ran out and another writer broke it; nothing was written`, path);
        },
      });
    } finally {
      clearInterval(renew);
      if (await holds(path, held).catch(() => false)) await unlink(path).catch(() => undefined);
      await held.handle.close().catch(() => undefined);
    }
  } finally {
    heldHere.delete(holder.token);
  }
}
