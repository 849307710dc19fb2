// DocumentStore on a local (or shared) folder, as JSON Lines:
//   <root>/<runId>/documents.jsonl   failures.jsonl   links-<list>.jsonl
// each with a `.idx` key index and a `.lock` file beside it (see fs/keyed-log.ts).
// Several worker processes may write the same run; reads stream line by line.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { followEntries, type FollowOptions } from './follow.js';
import { toStoreError } from './errors.js';
import { KeyedLog } from './fs/keyed-log.js';
import { decodeName, encodeName } from './fs/names.js';
import { pageLimit, requireName, toLinkEntries, toStoredDocuments, toStoredFailures } from './records.js';
import type {
  CountScope,
  Counts,
  DocumentInput,
  DocumentStore,
  FailureInput,
  LinkEntry,
  Page,
  PageOptions,
  ReadOptions,
  RunSummary,
  StoredDocument,
  StoredFailure,
} from './types.js';

export interface FilesystemStoreOptions {
  /** Folder with one sub-folder per run; created on first write. */
  root: string;
  /** How long an append waits for another writer of the same file; default 30 s. */
  lockTimeoutMs?: number;
  /** A lock holder's lease, renewed while it writes: a lock not renewed for this long is taken over; default 60 s. */
  staleLockMs?: number;
  /** Runs whose key sets stay in memory between calls; default 64. */
  maxOpenRuns?: number;
}

interface RunLogs {
  /** This store created (or found) the run's folder: later appends skip the mkdir. */
  folderReady: boolean;
  documents: KeyedLog<StoredDocument>;
  failures: KeyedLog<StoredFailure>;
  links: Map<string, KeyedLog<LinkEntry>>;
}

const LINKS_FILE = /^links-(.+)\.jsonl$/;

export class FilesystemStore implements DocumentStore {
  readonly kind = 'fs' as const;
  readonly root: string;
  private readonly lock: { timeoutMs: number; staleMs: number };
  private readonly maxOpenRuns: number;
  /** Open runs, least recently used first. */
  private readonly runs = new Map<string, RunLogs>();
  private closed = false;

  constructor(options: FilesystemStoreOptions) {
    this.root = resolve(requireName('FilesystemStore root', options.root));
    this.lock = { timeoutMs: options.lockTimeoutMs ?? 30_000, staleMs: options.staleLockMs ?? 60_000 };
    this.maxOpenRuns = Math.max(1, options.maxOpenRuns ?? 64);
  }

  async appendDocuments(runId: string, jobId: string, documents: readonly DocumentInput[]): Promise<number> {
    requireName('jobId', jobId);
    const records = toStoredDocuments(jobId, documents);
    if (records.length === 0) return 0;
    return this.appendToRun(runId, (logs) => logs.documents, records);
  }

  async appendFailures(runId: string, jobId: string, failures: readonly FailureInput[]): Promise<number> {
    requireName('jobId', jobId);
    const records = toStoredFailures(jobId, failures);
    if (records.length === 0) return 0;
    return this.appendToRun(runId, (logs) => logs.failures, records);
  }

  async appendLinks(runId: string, list: string, links: readonly LinkEntry[]): Promise<number> {
    const log = this.linkLog(runId, list);
    const records = toLinkEntries(links);
    if (records.length === 0) return 0;
    return this.appendToRun(runId, () => log, records);
  }

  async *readDocuments(runId: string, options: ReadOptions = {}): AsyncIterable<StoredDocument> {
    const log = this.logs(runId).documents;
    for await (const { record } of log.read({ group: options.jobId, after: parseCursor(options.after) })) yield record;
  }

  async getDocument(runId: string, jobId: string, url: string): Promise<StoredDocument | undefined> {
    const log = this.logs(runId).documents;
    requireName('jobId', jobId);
    requireName('url', url);
    return log.get(documentKey(jobId, url));
  }

  async pageDocuments(runId: string, options: PageOptions = {}): Promise<Page<StoredDocument>> {
    const limit = pageLimit(options.limit);
    const items: StoredDocument[] = [];
    const log = this.logs(runId).documents;
    for await (const { record, end } of log.read({ group: options.jobId, after: parseCursor(options.after) })) {
      items.push(record);
      if (items.length === limit) return { items, next: String(end) };
    }
    return { items, next: null };
  }

  /** Polls the documents file from the byte offset reached; a line still being written is left for the next read. */
  followDocuments(runId: string, options: FollowOptions = {}): AsyncIterable<StoredDocument> {
    const log = this.logs(runId).documents;
    return followEntries(async function* (after) {
      for await (const { record, end } of log.read({ group: options.jobId, after: parseCursor(after) })) yield { record, position: String(end) };
    }, options);
  }

  async *readFailures(runId: string, options: ReadOptions = {}): AsyncIterable<StoredFailure> {
    const log = this.logs(runId).failures;
    for await (const { record } of log.read({ group: options.jobId, after: parseCursor(options.after) })) yield record;
  }

  async *readLinks(runId: string, list: string): AsyncIterable<LinkEntry> {
    for await (const { record } of this.linkLog(runId, list).read()) yield record;
  }

  async count(runId: string, scope: CountScope = {}): Promise<Counts> {
    const logs = this.logs(runId);
    const [documents, failures] = await Promise.all([logs.documents.counts(), logs.failures.counts()]);
    const lists = scope.list !== undefined ? [scope.list] : await this.listNames(runId);
    let links = 0;
    for (const list of lists) links += (await this.linkLog(runId, list).counts()).total;
    const pick = (c: { total: number; groups: Map<string, number> }) => (scope.jobId === undefined ? c.total : (c.groups.get(scope.jobId) ?? 0));
    return { documents: pick(documents), failures: pick(failures), links };
  }

  async listRuns(): Promise<RunSummary[]> {
    this.assertOpen();
    let entries;
    try {
      entries = await readdir(this.root, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const runs: RunSummary[] = [];
    for (const entry of entries) {
      const runId = entry.isDirectory() ? decodeName(entry.name) : null;
      if (runId === null) continue;
      const updatedAt = await this.lastWrite(runId);
      if (updatedAt === null) continue; // deleted meanwhile
      runs.push({ runId, ...(await this.count(runId)), updatedAt });
    }
    return runs.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.runId.localeCompare(b.runId));
  }

  async deleteRun(runId: string): Promise<void> {
    const dir = this.runDir(runId);
    this.runs.delete(runId);
    await rm(dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.runs.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('FilesystemStore is closed');
  }

  private runDir(runId: string): string {
    this.assertOpen();
    return join(this.root, encodeName(requireName('runId', runId)));
  }

  /**
   * Appends to one of the run's logs. The run's folder is created on this store's first append
   * to it, not on every one; if another process removed it since, the append fails with ENOENT
   * (its lock file cannot be created) and runs once more after creating the folder again.
   */
  private async appendToRun<T>(runId: string, logOf: (logs: RunLogs) => KeyedLog<T>, records: readonly T[]): Promise<number> {
    const logs = this.logs(runId);
    if (!logs.folderReady) {
      await this.ensureRunDir(runId);
      logs.folderReady = true;
    }
    try {
      return await logOf(logs).append(records);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await this.ensureRunDir(runId);
      return logOf(logs).append(records);
    }
  }

  private async ensureRunDir(runId: string): Promise<void> {
    const dir = this.runDir(runId);
    await mkdir(dir, { recursive: true }).catch((err: unknown) => {
      throw toStoreError(err, dir);
    });
  }

  /** The run's logs, kept in a small LRU: their key sets are rebuilt from disk when needed. */
  private logs(runId: string): RunLogs {
    const dir = this.runDir(runId);
    let logs = this.runs.get(runId);
    if (logs) {
      this.runs.delete(runId);
    } else {
      logs = {
        folderReady: false,
        documents: this.log<StoredDocument>(dir, 'documents', (d) => documentKey(d.jobId, d.url), (d) => d.jobId),
        failures: this.log<StoredFailure>(dir, 'failures', (f) => `${f.jobId}\n${f.url}`, (f) => f.jobId),
        links: new Map(),
      };
      if (this.runs.size >= this.maxOpenRuns) this.runs.delete(this.runs.keys().next().value as string);
    }
    this.runs.set(runId, logs);
    return logs;
  }

  private linkLog(runId: string, list: string): KeyedLog<LinkEntry> {
    const base = `links-${encodeName(requireName('list', list))}`;
    const logs = this.logs(runId);
    let log = logs.links.get(list);
    if (!log) {
      log = this.log<LinkEntry>(this.runDir(runId), base, (l) => l.url, () => undefined);
      logs.links.set(list, log);
    }
    return log;
  }

  private log<T>(dir: string, base: string, keyOf: (r: T) => string, groupOf: (r: T) => string | undefined): KeyedLog<T> {
    return new KeyedLog<T>({
      dataPath: join(dir, `${base}.jsonl`),
      indexPath: join(dir, `${base}.idx`),
      lockPath: join(dir, `${base}.lock`),
      lock: this.lock,
      keyOf,
      groupOf,
    });
  }

  private async listNames(runId: string): Promise<string[]> {
    let files: string[];
    try {
      files = await readdir(this.runDir(runId));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return files.flatMap((file) => {
      const match = LINKS_FILE.exec(file);
      const list = match ? decodeName(match[1]) : null;
      return list === null ? [] : [list];
    });
  }

  /** Latest modification time of the run's data, or null if the run folder is gone. */
  private async lastWrite(runId: string): Promise<string | null> {
    const dir = this.runDir(runId);
    let files: string[];
    try {
      files = await readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let latest = (await stat(dir).catch(() => null))?.mtimeMs ?? 0;
    for (const file of files) {
      if (!file.endsWith('.jsonl')) continue;
      const info = await stat(join(dir, file)).catch(() => null);
      if (info && info.mtimeMs > latest) latest = info.mtimeMs;
    }
    return new Date(latest).toISOString();
  }
}

/** The idempotency key of a document (hashed by the log), as getDocument looks it up. */
const documentKey = (jobId: string, url: string) => `${jobId}\n${url}`;

function parseCursor(after: string | undefined): number | undefined {
  if (after === undefined) return undefined;
  if (!/^\d{1,15}$/.test(after)) throw new TypeError(`invalid read position for the filesystem store: ${JSON.stringify(after)}`);
  return Number(after);
}
