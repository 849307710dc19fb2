// One append-only JSON Lines file with a key index beside it, written by any number of
// processes. Each append runs under a lock file: it catches up with what other writers
// indexed, repairs what a killed writer left (unindexed lines, a torn last line), skips
// keys already present and appends whole lines. The index file holds one line per
// record — [key hash, byte offset, byte length, group] — so a new process rebuilds its
// seen-key set, and where each record lies, without parsing the (large) data file; a
// lookup by key then reads just that record's bytes.
import { open, stat, truncate } from 'node:fs/promises';
import { hashKey } from '../records.js';
import { readLines } from './lines.js';
import { toStoreError } from '../errors.js';
import { withFileLock, type LockGuard, type LockOptions } from './lock.js';

export interface KeyedLogOptions<T> {
  dataPath: string;
  indexPath: string;
  lockPath: string;
  lock: LockOptions;
  /** The idempotency key of a record (hashed before it is kept or written). */
  keyOf(record: T): string;
  /** The group a record is counted and filtered under (its job), if any. */
  groupOf(record: T): string | undefined;
}

type IndexEntry = [key: string, offset: number, length: number, group?: string];

interface State {
  /** Inode of the index file this state was built from; a new inode means the run was re-created. */
  ino: number | null;
  /** Bytes of the index file applied. */
  indexOffset: number;
  /** End of the last indexed data line: everything after it is checked on repair. */
  dataEnd: number;
  /** Every indexed key hash → its slot in `offsets`/`lengths` (slot n = the n-th distinct key). */
  keys: Map<string, number>;
  /** Byte offset and length of each slot's data line: numbers only, 16 bytes a record. */
  offsets: Float64Array;
  lengths: Float64Array;
  total: number;
  groups: Map<string, number>;
}

export interface LogCounts {
  total: number;
  groups: Map<string, number>;
}

const emptyState = (ino: number | null = null): State => ({
  ino,
  indexOffset: 0,
  dataEnd: 0,
  keys: new Map(),
  offsets: new Float64Array(0),
  lengths: new Float64Array(0),
  total: 0,
  groups: new Map(),
});

async function sizeOf(path: string): Promise<{ size: number; ino: number } | null> {
  try {
    const info = await stat(path);
    return { size: info.size, ino: info.ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export class KeyedLog<T> {
  private state: State = emptyState();
  /** Serialises this object's own state changes; the lock file orders processes. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: KeyedLogOptions<T>) {}

  /** Appends the records whose key is new, in order. @returns how many were written. */
  append(records: readonly T[]): Promise<number> {
    return this.exclusive(() => withFileLock(this.options.lockPath, this.options.lock, (guard) => this.appendLocked(records, guard))).catch((err: unknown) => {
      throw toStoreError(err, this.options.dataPath);
    });
  }

  /** Counts every record, including lines a killed writer left unindexed. */
  counts(): Promise<LogCounts> {
    return this.exclusive(async () => {
      await this.catchUp();
      const { entries } = await this.scanTail();
      const groups = new Map(this.state.groups);
      for (const [, , , group] of entries) if (group !== undefined) groups.set(group, (groups.get(group) ?? 0) + 1);
      return { total: this.state.total + entries.length, groups };
    });
  }

  /**
   * The record stored under `key` (unhashed, as `keyOf` returns it), or undefined. Catches
   * up with the index, then reads only that record's bytes; a key only in lines a killed
   * writer left unindexed is found by scanning that unindexed tail, as `counts` does.
   */
  async get(key: string): Promise<T | undefined> {
    const hashed = hashKey(key);
    // A second try after a mismatch: the run was deleted and re-created between lookup and read.
    for (let attempt = 0; attempt < 2; attempt++) {
      const at = await this.exclusive(async () => {
        await this.catchUp();
        const slot = this.state.keys.get(hashed);
        if (slot !== undefined) return { offset: this.state.offsets[slot], length: this.state.lengths[slot] };
        const { entries } = await this.scanTail();
        const entry = entries.find(([k]) => k === hashed);
        return entry && { offset: entry[1], length: entry[2] };
      });
      if (!at) return undefined;
      const record = await this.readAt(at.offset, at.length);
      if (record !== undefined && hashKey(this.options.keyOf(record)) === hashed) return record;
      await this.exclusive(async () => this.reset());
    }
    return undefined;
  }

  /** Streams the records in order, from byte offset `after`, up to the file's size now. */
  async *read(options: { group?: string; after?: number } = {}): AsyncGenerator<{ record: T; end: number }> {
    const data = await sizeOf(this.options.dataPath);
    if (!data) return;
    for await (const line of readLines(this.options.dataPath, options.after ?? 0, data.size)) {
      const record = parse<T>(line.text);
      if (record === undefined) continue;
      if (options.group !== undefined && this.options.groupOf(record) !== options.group) continue;
      yield { record, end: line.end };
    }
  }

  /** Forgets what this process knew, e.g. after the run was deleted. */
  reset(): void {
    this.state = emptyState();
  }

  /** The record in the data file's bytes [offset, offset + length), or undefined if they are not one. */
  private async readAt(offset: number, length: number): Promise<T | undefined> {
    let handle;
    try {
      handle = await open(this.options.dataPath, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const buffer = Buffer.allocUnsafe(length);
      let read = 0;
      while (read < length) {
        const { bytesRead } = await handle.read(buffer, read, length - read, offset + read);
        if (bytesRead === 0) return undefined; // the file was cut or replaced meanwhile
        read += bytesRead;
      }
      return parse<T>(buffer.toString('utf8'));
    } finally {
      await handle.close();
    }
  }

  private exclusive<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async appendLocked(records: readonly T[], guard: LockGuard): Promise<number> {
    const index = await this.catchUp();
    await this.repair(guard, index);
    const fresh: { line: Buffer; key: string; group: string | undefined }[] = [];
    const batchKeys = new Set<string>();
    for (const record of records) {
      const key = hashKey(this.options.keyOf(record));
      if (this.state.keys.has(key) || batchKeys.has(key)) continue;
      batchKeys.add(key);
      fresh.push({ line: Buffer.from(`${JSON.stringify(record)}\n`, 'utf8'), key, group: this.options.groupOf(record) });
    }
    if (fresh.length === 0) return 0;

    await guard.assertHeld();
    const dataHandle = await open(this.options.dataPath, 'a');
    let base: number;
    try {
      base = (await dataHandle.stat()).size;
      try {
        // One buffer, one O_APPEND write: a crash can only tear the last line.
        await dataHandle.appendFile(Buffer.concat(fresh.map((f) => f.line)));
      } catch (err) {
        await dataHandle.truncate(base).catch(() => undefined);
        throw err;
      }
    } finally {
      await dataHandle.close();
    }

    let offset = base;
    const entries: IndexEntry[] = fresh.map(({ line, key, group }) => {
      const entry: IndexEntry = group === undefined ? [key, offset, line.length] : [key, offset, line.length, group];
      offset += line.length;
      return entry;
    });
    await this.writeIndex(entries, guard);
    return fresh.length;
  }

  /** Applies index lines other processes wrote since this state was last brought up to date; returns the index file's size and inode it read up to. */
  private async catchUp(): Promise<{ size: number; ino: number } | null> {
    const index = await sizeOf(this.options.indexPath);
    if (!index) {
      if (this.state.ino !== null) this.state = emptyState();
      return null;
    }
    if (this.state.ino !== index.ino || index.size < this.state.indexOffset) this.state = emptyState(index.ino);
    for await (const line of readLines(this.options.indexPath, this.state.indexOffset, index.size)) {
      const entry = parse<IndexEntry>(line.text);
      if (entry) this.apply(entry);
      this.state.indexOffset = line.end;
    }
    return index;
  }

  /** Valid data lines past the last indexed one: left by a writer killed before it indexed them. */
  private async scanTail(): Promise<{ entries: IndexEntry[]; completeEnd: number; size: number }> {
    const data = await sizeOf(this.options.dataPath);
    const size = data?.size ?? 0;
    const entries: IndexEntry[] = [];
    const seen = new Set<string>();
    let completeEnd = Math.min(this.state.dataEnd, size);
    for await (const line of readLines(this.options.dataPath, completeEnd, size)) {
      completeEnd = line.end;
      const record = parse<T>(line.text);
      if (record === undefined) continue;
      const key = hashKey(this.options.keyOf(record));
      if (this.state.keys.has(key) || seen.has(key)) continue;
      seen.add(key);
      const group = this.options.groupOf(record);
      entries.push(group === undefined ? [key, line.start, line.end - line.start] : [key, line.start, line.end - line.start, group]);
    }
    return { entries, completeEnd, size };
  }

  /**
   * Under the lock: index orphaned lines and cut torn last lines, so appends start clean.
   * `index` is what `catchUp` found under this same lock: no writer can have changed it since.
   */
  private async repair(guard: LockGuard, index: { size: number } | null): Promise<void> {
    const { entries, completeEnd, size } = await this.scanTail();
    const indexTorn = index !== null && index.size > this.state.indexOffset;
    if (size > completeEnd || indexTorn || entries.length > 0) {
      await guard.assertHeld();
      if (size > completeEnd) await truncate(this.options.dataPath, completeEnd);
      if (indexTorn) await truncate(this.options.indexPath, this.state.indexOffset);
      if (entries.length > 0) await this.writeIndex(entries, guard);
    }
    this.state.dataEnd = Math.max(this.state.dataEnd, completeEnd);
  }

  private async writeIndex(entries: IndexEntry[], guard: LockGuard): Promise<void> {
    await guard.assertHeld();
    const text = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
    const handle = await open(this.options.indexPath, 'a');
    try {
      const info = await handle.stat();
      if (this.state.ino !== info.ino) {
        // First index write of this run (or the run was re-created under us).
        if (this.state.ino !== null || info.size !== 0) throw new Error(`${this.options.indexPath} changed while locked`);
        this.state.ino = info.ino;
      }
      await handle.appendFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    this.state.indexOffset += Buffer.byteLength(text);
    for (const entry of entries) this.apply(entry);
  }

  private apply([key, offset, length, group]: IndexEntry): void {
    const s = this.state;
    s.dataEnd = Math.max(s.dataEnd, offset + length);
    if (s.keys.has(key)) return;
    const slot = s.total;
    if (slot === s.offsets.length) {
      const capacity = Math.max(64, slot * 2);
      const offsets = new Float64Array(capacity);
      const lengths = new Float64Array(capacity);
      offsets.set(s.offsets);
      lengths.set(s.lengths);
      s.offsets = offsets;
      s.lengths = lengths;
    }
    s.offsets[slot] = offset;
    s.lengths[slot] = length;
    s.keys.set(key, slot);
    s.total += 1;
    if (group !== undefined) s.groups.set(group, (s.groups.get(group) ?? 0) + 1);
  }
}

function parse<R>(text: string): R | undefined {
  try {
    return JSON.parse(text) as R;
  } catch {
    return undefined;
  }
}
