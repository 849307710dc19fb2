// A cross-process lock file (O_EXCL create), for the short check-and-append of a log.
// A holder killed with SIGKILL leaves its file behind, so a lock whose process is gone
// (same host) or that is older than `staleMs` (another host) is broken and taken over.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { open, readFile, rename, stat, unlink, link } from 'node:fs/promises';

export interface LockOptions {
  /** Give up waiting after this long. */
  timeoutMs: number;
  /** Age after which a lock of another host (or an unreadable one) counts as abandoned. */
  staleMs: number;
}

interface Holder {
  pid: number;
  host: string;
  token: string;
}

const HOST = hostname();

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return errno(err) === 'EPERM';
  }
  return true;
}

async function isZombie(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

async function readHolder(path: string): Promise<{ holder: Holder | null; ageMs: number } | null> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    let holder: Holder | null = null;
    try {
      holder = JSON.parse(text) as Holder;
    } catch {
      // Killed between creating the file and writing it: judged by age alone.
    }
    return { holder, ageMs: Date.now() - info.mtimeMs };
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
}

async function isStale(found: { holder: Holder | null; ageMs: number }, staleMs: number): Promise<boolean> {
  const { holder, ageMs } = found;
  // An empty file is a holder between create and write, or one killed right there.
  if (holder === null) return ageMs > Math.min(staleMs, 5_000);
  if (holder.host !== HOST) return ageMs > staleMs;
  return !processAlive(holder.pid) || (await isZombie(holder.pid));
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
  const moved = await readHolder(aside);
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
  } finally {
    await handle.close();
  }
  return true;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn` while holding the lock file at `path` (its folder must exist). */
export async function withFileLock<T>(path: string, options: LockOptions, fn: () => Promise<T>): Promise<T> {
  const holder: Holder = { pid: process.pid, host: HOST, token: randomBytes(9).toString('base64url') };
  const deadline = Date.now() + options.timeoutMs;
  let delay = 1;
  for (;;) {
    if (await tryCreate(path, holder)) break;
    const found = await readHolder(path);
    if (found && (await isStale(found, options.staleMs))) {
      await breakLock(path, found.holder?.token);
      continue;
    }
    if (Date.now() > deadline) {
      const who = found?.holder ? `pid ${found.holder.pid} on ${found.holder.host}` : 'an unknown process';
      throw new Error(`Timed out after ${options.timeoutMs} ms waiting for lock ${path}, held by ${who}`);
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
  try {
    return await fn();
  } finally {
    const current = await readHolder(path);
    if (current?.holder?.token === holder.token) await unlink(path).catch(() => undefined);
  }
}
