// DocumentStore on PostgreSQL (npm `pg`). Appends are multi-row INSERTs from one JSON
// parameter with ON CONFLICT DO NOTHING on a unique key, counting new rows with
// RETURNING; reads are keyset pages over the bigserial id. Writers of one run take a
// transaction-scoped advisory lock, so a run's ids are committed in order (a reader
// paging by id never skips a row committed late) and overlapping batches cannot deadlock.
import { createRequire } from 'node:module';
import type pg from 'pg';
import { followEntries, type FollowOptions } from './follow.js';
import { quoteSchema, schemaStatements } from './postgres/schema.js';
import { hashKey, pageLimit, requireName, toLinkEntries, toStoredDocuments, toStoredFailures, uniqueBy } from './records.js';
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

/** `pg` is an optional peer dependency: loaded only when a PostgreSQL store is created. */
function loadPg(): typeof pg {
  try {
    return createRequire(import.meta.url)('pg') as typeof pg;
  } catch (err) {
    throw new Error('the PostgreSQL store needs the package "pg": npm install pg', { cause: err });
  }
}

export interface PostgresStoreOptions {
  /** postgres:// or postgresql:// URL. */
  connectionString: string;
  /** Schema holding the tables; created on first use. Default `webdata`. */
  schema?: string;
  /** Pool size; default 4. */
  maxConnections?: number;
  /** Rows per INSERT statement (and transaction); default 500. */
  insertBatchSize?: number;
  /** Rows fetched per query when streaming; default 500. */
  readChunkSize?: number;
}

type Table = 'documents' | 'failures' | 'links';

/** A row to insert: key columns plus the exact record. */
interface Row {
  key: string;
  job_id?: string;
  list?: string;
  url: string;
  kind?: string;
  record: unknown;
}

/** Insert columns per table, besides run_id. */
const COLUMNS: Record<Table, string[]> = {
  documents: ['key', 'job_id', 'url', 'kind', 'record'],
  failures: ['key', 'job_id', 'url', 'record'],
  links: ['list', 'key', 'url', 'record'],
};

/** Keeps a JSON batch statement well under PostgreSQL's 1 GB parameter limit and memory friendly. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/** Text columns cannot hold NUL or lone surrogates; the json `record` keeps the exact value. */
const cleanText = (value: string) => value.replace(/\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** The URL without its password, for error messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export class PostgresStore implements DocumentStore {
  readonly kind = 'postgres' as const;
  readonly schema: string;
  private readonly s: string;
  private readonly pool: pg.Pool;
  private readonly where: string;
  private readonly insertBatchSize: number;
  private readonly readChunkSize: number;
  private ready?: Promise<void>;
  private closed = false;

  constructor(options: PostgresStoreOptions) {
    this.schema = options.schema ?? 'webdata';
    this.s = quoteSchema(this.schema);
    this.where = redactUrl(options.connectionString);
    this.insertBatchSize = Math.max(1, options.insertBatchSize ?? 500);
    this.readChunkSize = Math.max(1, options.readChunkSize ?? 500);
    this.pool = new (loadPg().Pool)({ connectionString: options.connectionString, max: options.maxConnections ?? 4, application_name: 'webdata-temporal' });
    // An idle connection dropped by the server must not crash the worker; the next query reports it.
    this.pool.on('error', () => undefined);
  }

  async appendDocuments(runId: string, jobId: string, documents: readonly DocumentInput[]): Promise<number> {
    requireName('runId', runId);
    requireName('jobId', jobId);
    const rows = toStoredDocuments(jobId, documents).map(
      (d): Row => ({ key: documentKey(jobId, d.url), job_id: cleanText(jobId), url: cleanText(d.url), kind: cleanText(d.kind), record: d }),
    );
    return this.insert('documents', runId, rows);
  }

  async appendFailures(runId: string, jobId: string, failures: readonly FailureInput[]): Promise<number> {
    requireName('runId', runId);
    requireName('jobId', jobId);
    const rows = toStoredFailures(jobId, failures).map(
      (f): Row => ({ key: hashKey(`${jobId}\n${f.url}`), job_id: cleanText(jobId), url: cleanText(f.url), record: f }),
    );
    return this.insert('failures', runId, rows);
  }

  async appendLinks(runId: string, list: string, links: readonly LinkEntry[]): Promise<number> {
    requireName('runId', runId);
    requireName('list', list);
    const rows = toLinkEntries(links).map((l): Row => ({ key: hashKey(l.url), list: cleanText(list), url: cleanText(l.url), record: l }));
    return this.insert('links', runId, rows);
  }

  readDocuments(runId: string, options: ReadOptions = {}): AsyncIterable<StoredDocument> {
    return this.stream<StoredDocument>('documents', runId, { job_id: options.jobId }, parseCursor(options.after));
  }

  async getDocument(runId: string, jobId: string, url: string): Promise<StoredDocument | undefined> {
    requireName('runId', runId);
    requireName('jobId', jobId);
    requireName('url', url);
    await this.init();
    // The unique (run_id, key) index: the key as appendDocuments derives it.
    const res = await this.pool.query<{ record: StoredDocument }>(`SELECT record FROM ${this.s}.documents WHERE run_id = $1 AND key = $2`, [runId, documentKey(jobId, url)]);
    return res.rows[0]?.record;
  }

  async pageDocuments(runId: string, options: PageOptions = {}): Promise<Page<StoredDocument>> {
    const limit = pageLimit(options.limit);
    // One row more than asked tells whether anything follows.
    const rows = await this.page<StoredDocument>('documents', runId, { job_id: options.jobId }, parseCursor(options.after) ?? '0', limit + 1);
    const items = rows.slice(0, limit);
    return { items: items.map((r) => r.record), next: rows.length > limit ? items[items.length - 1].id : null };
  }

  /** Polls by row id: ids of a run commit in order (advisory lock), so none is passed over. */
  followDocuments(runId: string, options: FollowOptions = {}): AsyncIterable<StoredDocument> {
    requireName('runId', runId);
    const page = (after: string) => this.page<StoredDocument>('documents', runId, { job_id: options.jobId }, after, this.readChunkSize);
    return followEntries(async function* (after) {
      let cursor = parseCursor(after) ?? '0';
      for (;;) {
        const rows = await page(cursor);
        for (const row of rows) yield { record: row.record, position: row.id };
        if (rows.length === 0) return;
        cursor = rows[rows.length - 1].id;
      }
    }, options);
  }

  readFailures(runId: string, options: ReadOptions = {}): AsyncIterable<StoredFailure> {
    return this.stream<StoredFailure>('failures', runId, { job_id: options.jobId }, parseCursor(options.after));
  }

  readLinks(runId: string, list: string): AsyncIterable<LinkEntry> {
    requireName('list', list);
    return this.stream<LinkEntry>('links', runId, { list });
  }

  async count(runId: string, scope: CountScope = {}): Promise<Counts> {
    requireName('runId', runId);
    await this.init();
    const { s } = this;
    const total = await this.pool.query<{ documents: string; failures: string; links: string }>(
      `SELECT documents, failures, links FROM ${s}.runs WHERE run_id = $1`,
      [runId],
    );
    const run = total.rows[0] ?? { documents: '0', failures: '0', links: '0' };
    const counts = { documents: Number(run.documents), failures: Number(run.failures), links: Number(run.links) };
    const countWhere = async (table: Table, column: string, value: string) => {
      const res = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${s}.${table} WHERE run_id = $1 AND ${column} = $2`, [runId, cleanText(value)]);
      return Number(res.rows[0].n);
    };
    if (scope.jobId !== undefined) {
      [counts.documents, counts.failures] = await Promise.all([countWhere('documents', 'job_id', scope.jobId), countWhere('failures', 'job_id', scope.jobId)]);
    }
    if (scope.list !== undefined) counts.links = await countWhere('links', 'list', scope.list);
    return counts;
  }

  async listRuns(): Promise<RunSummary[]> {
    await this.init();
    const res = await this.pool.query<{ run_id: string; documents: string; failures: string; links: string; updated_at: Date }>(
      `SELECT run_id, documents, failures, links, updated_at FROM ${this.s}.runs ORDER BY updated_at DESC, run_id`,
    );
    return res.rows.map((r) => ({
      runId: r.run_id,
      documents: Number(r.documents),
      failures: Number(r.failures),
      links: Number(r.links),
      updatedAt: r.updated_at.toISOString(),
    }));
  }

  async deleteRun(runId: string): Promise<void> {
    requireName('runId', runId);
    await this.inRunTransaction(runId, async (client) => {
      for (const table of ['documents', 'failures', 'links', 'runs']) await client.query(`DELETE FROM ${this.s}.${table} WHERE run_id = $1`, [runId]);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** Creates the schema once per store; concurrent creators (other workers) queue on an advisory lock. */
  private init(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('PostgresStore is closed'));
    this.ready ??= (async () => {
      const { client, release } = await this.checkout().catch((err: Error) => {
        throw new Error(`PostgresStore cannot connect to ${this.where}: ${err.message}`, { cause: err });
      });
      try {
        await client.query('BEGIN');
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('webdata-temporal schema'), hashtext($1))`, [this.schema]);
        for (const sql of schemaStatements(this.s)) await client.query(sql);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`PostgresStore could not create schema ${this.schema} in ${this.where}: ${(err as Error).message}`, { cause: err });
      } finally {
        release(false);
      }
    })().catch((err: unknown) => {
      this.ready = undefined; // let a later call retry, e.g. once the server is up
      throw err;
    });
    return this.ready;
  }

  private async inRunTransaction<T>(runId: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.init();
    const { client, release } = await this.checkout();
    let broken = false;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [this.schema, runId]);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      release(broken);
    }
  }

  /**
   * A pooled connection for a transaction. The pool listens for errors only on idle connections:
   * a checked-out one whose server goes away (a PostgreSQL restart) emits 'error', and without a
   * listener that crashes the worker. Here it breaks the connection instead: the query in flight
   * fails (the activity retries) and the pool drops it on release.
   */
  private async checkout(): Promise<{ client: pg.PoolClient; release: (broken: boolean) => void }> {
    const client = await this.pool.connect();
    let lost = false;
    const onError = () => { lost = true; };
    client.on('error', onError);
    return {
      client,
      release: (broken) => {
        client.removeListener('error', onError);
        client.release(broken || lost);
      },
    };
  }

  private async insert(table: Table, runId: string, rows: Row[]): Promise<number> {
    const unique = uniqueBy(rows, (r) => `${r.list ?? ''}\n${r.key}`);
    const columns = COLUMNS[table];
    let added = 0;
    for (const batch of batches(unique, this.insertBatchSize)) {
      // One text[] parameter per column: json_to_recordset would reject \u0000 in a record.
      const params = [runId, ...columns.map((c) => batch.map((row) => (c === 'record' ? JSON.stringify(row.record) : (row[c as keyof Row] as string))))];
      added += await this.inRunTransaction(runId, async (client) => {
        const res = await client.query<{ n: string }>(this.insertSql(table), params);
        return Number(res.rows[0].n);
      });
    }
    return added;
  }

  private insertSql(table: Table): string {
    const { s } = this;
    const columns = COLUMNS[table];
    const arrays = columns.map((_, i) => `$${i + 2}::text[]`).join(', ');
    const values = columns.map((c) => (c === 'record' ? 'record::json' : c)).join(', ');
    return `WITH input AS (
        SELECT * FROM unnest(${arrays}) WITH ORDINALITY AS t(${columns.join(', ')}, ord)
      ), added AS (
        INSERT INTO ${s}.${table} (run_id, ${columns.join(', ')})
        SELECT $1, ${values} FROM input ORDER BY ord
        ON CONFLICT DO NOTHING
        RETURNING 1
      ), n AS (SELECT count(*) AS n FROM added),
      touched AS (
        INSERT INTO ${s}.runs AS r (run_id, ${table}) SELECT $1, n FROM n WHERE n > 0
        ON CONFLICT (run_id) DO UPDATE SET ${table} = r.${table} + EXCLUDED.${table}, updated_at = now()
      )
      SELECT n FROM n`;
  }

  private async page<T>(table: Table, runId: string, filter: Record<string, string | undefined>, after: string, limit: number) {
    await this.init();
    const params: unknown[] = [runId, after, limit];
    let where = 'run_id = $1 AND id > $2';
    for (const [column, value] of Object.entries(filter)) {
      if (value === undefined) continue;
      params.push(cleanText(value)); // as the column was written
      where += ` AND ${column} = $${params.length}`;
    }
    const res = await this.pool.query<{ id: string; record: T }>(`SELECT id, record FROM ${this.s}.${table} WHERE ${where} ORDER BY id LIMIT $3`, params);
    return res.rows;
  }

  private async *stream<T>(table: Table, runId: string, filter: Record<string, string | undefined>, after = '0'): AsyncGenerator<T> {
    requireName('runId', runId);
    let cursor = after;
    for (;;) {
      const rows = await this.page<T>(table, runId, filter, cursor, this.readChunkSize);
      for (const row of rows) yield row.record;
      if (rows.length < this.readChunkSize) return;
      cursor = rows[rows.length - 1].id;
    }
  }
}

/** Splits rows into INSERT batches by count and by (approximate) JSON size. */
function* batches(rows: Row[], maxRows: number): Generator<Row[]> {
  let batch: Row[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = approximateSize(row.record);
    if (batch.length > 0 && (batch.length >= maxRows || bytes + size > MAX_BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(row);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/** Length of the big string fields: enough to bound a batch without serialising twice. */
function approximateSize(record: unknown): number {
  let size = 256;
  for (const value of Object.values(record as Record<string, unknown>)) if (typeof value === 'string') size += value.length;
  return size;
}

/** The `key` column of a document: its jobId + url hashed (unique per run with run_id). */
function documentKey(jobId: string, url: string): string {
  return hashKey(`${jobId}\n${url}`);
}

function parseCursor(after: string | undefined): string | undefined {
  if (after === undefined) return undefined;
  if (!/^\d{1,19}$/.test(after)) throw new TypeError(`invalid read position for the PostgreSQL store: ${JSON.stringify(after)}`);
  return after;
}
