// A cross-process lock file (O_EXCL create), for the short check-and-append of a log.
// It cannot outlive its holder: released on every error path; a lock whose holder is gone
// (see lock-holder.ts) is broken and taken over; the holder renews its lease while it
// works, and checks it still holds the lock before each write (fencing), so a writer whose
// lock was broken meanwhile writes nothing. Waiting is bounded and ends in a typed error.
import { randomBytes } from 'node:crypto';
import { link, open, rename, unlink, utimes } from 'node:fs/promises';
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

async function tryCreate(path: string, holder: Holder): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx');
  } catch (err) {
    if (errno(err) === 'EEXIST') return false;
    throw err;
  }
  try {
    await handle.writeFile(JSON.stringify(holder));
  } catch (err) {
    // A full disk fails here: leave no empty lock behind.
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw err;
  }
  await handle.close();
  return true;
}

async function holds(path: string, token: string): Promise<boolean> {
  return (await readLock(path))?.holder?.token === token;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function acquire(path: string, options: LockOptions, holder: Holder): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = 1;
  for (;;) {
    if (await tryCreate(path, holder)) return;
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
    await acquire(path, options, holder).catch((err: unknown) => {
      throw toStoreError(err, path);
    });
    const renew = setInterval(() => {
      void holds(path, holder.token)
        .then((held) => (held ? utimes(path, new Date(), new Date()) : undefined))
        .catch(() => undefined);
    }, Math.max(10, options.staleMs / 4));
    renew.unref();
    try {
      return await fn({
        assertHeld: async () => {
          if (await holds(path, holder.token)) return;
          throw new StoreError('lock_lost', `Lost lock ${path}: its lease ran out and another writer broke it; nothing was written`, path);
        },
      });
    } finally {
      clearInterval(renew);
      if (await holds(path, holder.token).catch(() => false)) await unlink(path).catch(() => undefined);
    }
  } finally {
    heldHere.delete(holder.token);
  }
}
