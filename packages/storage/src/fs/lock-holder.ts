// Who holds a lock file, and whether that holder is gone. A lock file holds its holder's
// pid, host and a random token; its modification time is the holder's lease, renewed while
// it holds the lock (see lock.ts), so a lock past its lease is abandoned whoever wrote it.
import { hostname } from 'node:os';
import { readFile, stat } from 'node:fs/promises';

export interface Holder {
  pid: number;
  host: string;
  token: string;
}

export interface FoundLock {
  /** Null for a file with no holder written yet (or one killed right after creating it). */
  holder: Holder | null;
  /** Time since the holder last created or renewed the lock. */
  ageMs: number;
}

export const HOST = hostname();

/** Tokens of the locks this process holds right now. */
export const heldHere = new Set<string>();

export function errno(err: unknown): string | undefined {
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
    const info = await readFile(`/proc/${pid}/stat`, 'utf8');
    return info.slice(info.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** The lock at `path`, or null when there is none. */
export async function readLock(path: string): Promise<FoundLock | null> {
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

/**
 * Whether the lock is abandoned: past its lease (a live holder renews it), its process gone
 * (same host), or naming this very process with a token it does not hold (a lock file
 * copied or restored with its folder, or left by an earlier life of a reused pid). Never one
 * that this process holds.
 */
export async function isStale(path: string, { holder, ageMs }: FoundLock, leaseMs: number): Promise<boolean> {
  // An empty file is a holder between create and write, or one killed right there.
  if (holder === null) return ageMs > Math.min(leaseMs, 5_000);
  const ours = holder.host === HOST && holder.pid === process.pid;
  // A lock a writer of this process holds is alive whatever its age: its renewal runs in this
  // event loop, and after a stall a waiter here may look before the late renewal has run.
  if (ours && heldHere.has(holder.token)) return false;
  if (ageMs > leaseMs) return true;
  if (holder.host !== HOST) return false;
  if (ours) {
    // A holder here forgets its token only once its file is gone, so the token read before may
    // be a release in progress: only the same token read again now is a lock nobody here holds.
    return (await readLock(path))?.holder?.token === holder.token;
  }
  return !processAlive(holder.pid) || (await isZombie(holder.pid));
}

export function describeHolder(found: FoundLock | null): string {
  if (!found?.holder) return 'an unknown process';
  return `pid ${found.holder.pid} on ${found.holder.host} (lease renewed ${Math.round(found.ageMs / 1000)} s ago)`;
}
