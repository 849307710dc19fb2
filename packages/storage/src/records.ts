// Input checks and the shaping of appended items into stored records, shared by both
// stores so they accept and return exactly the same data.
import { createHash } from 'node:crypto';
import type { DocumentInput, FailureInput, LinkEntry, StoredDocument, StoredFailure } from './types.js';

/** Throws a TypeError naming `what` unless `value` is a non-empty string. */
export function requireName(what: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${what} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function requireArray(what: string, value: unknown): readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`${what} must be an array`);
  return value;
}

function isoTime(what: string, value: unknown, fallback: string): string {
  if (value === undefined || value === null) return fallback; // APIs send null for "unknown"
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw new TypeError(`${what} must be an ISO-8601 time string, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function toStoredDocuments(jobId: string, documents: readonly DocumentInput[], now = new Date().toISOString()): StoredDocument[] {
  requireArray('documents', documents);
  return documents.map((input, i) => {
    if (typeof input !== 'object' || input === null) throw new TypeError(`documents[${i}] must be an object`);
    // A stray jobId in the input must not override the job the call appends for.
    const { url, kind, metadata = {}, storedAt, jobId: _stray, ...rest } = input as DocumentInput & { jobId?: unknown };
    requireName(`documents[${i}].url`, url);
    requireName(`documents[${i}].kind`, kind);
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw new TypeError(`documents[${i}].metadata must be an object`);
    }
    // url/jobId/kind first so a line in documents.jsonl is readable at a glance.
    return { url, jobId, kind, ...rest, metadata, storedAt: isoTime(`documents[${i}].storedAt`, storedAt, now) };
  });
}

export function toStoredFailures(jobId: string, failures: readonly FailureInput[], now = new Date().toISOString()): StoredFailure[] {
  requireArray('failures', failures);
  return failures.map((input, i) => {
    if (typeof input !== 'object' || input === null) throw new TypeError(`failures[${i}] must be an object`);
    requireName(`failures[${i}].url`, input.url);
    if (typeof input.error !== 'string') throw new TypeError(`failures[${i}].error must be a string`);
    const failure: StoredFailure = { url: input.url, jobId, error: input.error, timestamp: isoTime(`failures[${i}].timestamp`, input.timestamp, now) };
    if (input.code !== undefined && input.code !== null) failure.code = String(input.code);
    return failure;
  });
}

export function toLinkEntries(links: readonly LinkEntry[]): LinkEntry[] {
  requireArray('links', links);
  return links.map((input, i) => {
    if (typeof input !== 'object' || input === null) throw new TypeError(`links[${i}] must be an object`);
    requireName(`links[${i}].url`, input.url);
    const entry: LinkEntry = { url: input.url };
    if (input.title !== undefined && input.title !== null) entry.title = String(input.title);
    if (input.description !== undefined && input.description !== null) entry.description = String(input.description);
    return entry;
  });
}

/** Keeps the first of each key, in order: a batch may repeat a URL. */
export function uniqueBy<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = keyOf(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A page size: a positive integer, 100 by default. */
export function pageLimit(limit: number | undefined): number {
  const value = limit ?? 100;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  return value;
}

/** 128 bits of SHA-256 of an idempotency key: small to keep and index, whatever the URL length. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}
