// The DocumentStore contract shared by the filesystem and PostgreSQL stores.
//
// Activities page a job's results into a store, heartbeat their own cursor and may be
// retried or killed mid-write; appends are therefore idempotent by key, so replaying a
// page after a crash writes each document exactly once. Workflows only ever see a
// StoreRef and counts, never the content.

/** What produced a document. Open-ended so new endpoints need no store change. */
export type DocumentKind = 'crawl' | 'batch' | 'scrape' | 'search' | 'extract' | 'interact' | (string & {});

/** Fields a document has both as appended and as stored; extra API fields are kept verbatim. */
export interface DocumentFields {
  url: string;
  kind: DocumentKind;
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  /** The page's `json` format answer (an object following the request's schema), verbatim. */
  json?: unknown;
  /** The page's `summary` format answer. */
  summary?: string;
  [field: string]: unknown;
}

/** A scraped page as stored. */
export interface StoredDocument extends DocumentFields {
  jobId: string;
  metadata: Record<string, unknown>;
  /** ISO-8601 time the store first accepted the document. */
  storedAt: string;
}

/** A document to append: `jobId` comes from the call; `metadata` defaults to {}, `storedAt` to now. */
export interface DocumentInput extends DocumentFields {
  metadata?: Record<string, unknown>;
  storedAt?: string;
}

/** A page that could not be scraped. */
export interface StoredFailure {
  url: string;
  jobId: string;
  error: string;
  code?: string;
  /** ISO-8601 time of the failure. */
  timestamp: string;
}

export type FailureInput = Omit<StoredFailure, 'jobId' | 'timestamp'> & { timestamp?: string };

/** One entry of a link list (map results). */
export interface LinkEntry {
  url: string;
  title?: string;
  description?: string;
}

export interface Counts {
  documents: number;
  failures: number;
  links: number;
}

export interface RunSummary extends Counts {
  runId: string;
  /** ISO-8601 time of the last write to the run. */
  updatedAt: string;
}

/** Narrows a count: `jobId` narrows documents and failures, `list` narrows links. */
export interface CountScope {
  jobId?: string;
  list?: string;
}

export interface ReadOptions {
  /** Only this job's entries. */
  jobId?: string;
  /** Resume after this position (a `next` from {@link Page}); opaque to callers. */
  after?: string;
}

export interface PageOptions extends ReadOptions {
  /** Most entries to return; default 100. */
  limit?: number;
}

/** A slice of a run in insertion order, for callers that heartbeat their position. */
export interface Page<T> {
  items: T[];
  /** Pass as `after` to continue; null once the end was reached (a non-null one may lead to an empty page). */
  next: string | null;
}

import type { FollowOptions } from './follow.js';

export type { FollowOptions };

export type StoreKind = 'fs' | 'postgres';

/** Small, serialisable pointer to stored data; safe to carry through workflow history. */
export interface StoreRef {
  store: StoreKind;
  runId: string;
  jobId?: string;
  list?: string;
}

export interface DocumentStore {
  readonly kind: StoreKind;

  /**
   * Appends a job's documents to a run. Key: runId + jobId + url; a key already stored
   * (by this or any other writer, or earlier in the same batch) is skipped.
   * @returns how many documents were new.
   */
  appendDocuments(runId: string, jobId: string, documents: readonly DocumentInput[]): Promise<number>;

  /** Appends a job's failures; idempotent by runId + jobId + url. @returns how many were new. */
  appendFailures(runId: string, jobId: string, failures: readonly FailureInput[]): Promise<number>;

  /** Appends to the named link list of a run; idempotent by runId + list + url. @returns how many were new. */
  appendLinks(runId: string, list: string, links: readonly LinkEntry[]): Promise<number>;

  /**
   * Streams a run's documents in insertion order; never holds the run in memory.
   * Documents appended while the stream is read may or may not be included.
   */
  readDocuments(runId: string, options?: ReadOptions): AsyncIterable<StoredDocument>;

  /**
   * The stored document of runId + jobId + url (the append key), or undefined for an
   * unknown run, job or url. Cost independent of the run's size where the store allows
   * (an index lookup, not a scan).
   */
  getDocument(runId: string, jobId: string, url: string): Promise<StoredDocument | undefined>;

  /** One page of documents in insertion order, with a position to resume from. */
  pageDocuments(runId: string, options?: PageOptions): Promise<Page<StoredDocument>>;

  /**
   * Yields a run's documents in insertion order, then those appended afterwards as they
   * arrive: for readers that watch a run while a worker writes it. Ends when `until()` says
   * the run ended (after reading what is left) or `signal` aborts.
   */
  followDocuments(runId: string, options?: FollowOptions): AsyncIterable<StoredDocument>;

  /** Streams a run's failures in insertion order. */
  readFailures(runId: string, options?: ReadOptions): AsyncIterable<StoredFailure>;

  /** Streams a link list in insertion order (empty if the list does not exist). */
  readLinks(runId: string, list: string): AsyncIterable<LinkEntry>;

  /** Counts of a run, optionally narrowed to a job and/or a link list; zeros for an unknown run. */
  count(runId: string, scope?: CountScope): Promise<Counts>;

  /** Every run with its counts and last update, most recently updated first. */
  listRuns(): Promise<RunSummary[]>;

  /** Deletes everything stored for a run; no error if it does not exist. */
  deleteRun(runId: string): Promise<void>;

  /** Releases files and connections; the store must not be used afterwards. */
  close(): Promise<void>;
}

/** Builds a reference to data in `store`, for workflow inputs and results. */
export function refOf(store: Pick<DocumentStore, 'kind'>, runId: string, scope: Omit<StoreRef, 'store' | 'runId'> = {}): StoreRef {
  const ref: StoreRef = { store: store.kind, runId };
  if (scope.jobId !== undefined) ref.jobId = scope.jobId;
  if (scope.list !== undefined) ref.list = scope.list;
  return ref;
}
