// Helpers route modules use to check input: bodies against the shared zod schemas,
// job ids, ownership and query parameters. All throw HttpError values.
import type { z } from 'zod';
// The only import from the package outside service/: the shared request schemas.
import { formatIssues, summarizeIssues } from 'webdata-contract';
import type { HttpError } from '../core/http-error.js';
import type { TeamConfig } from '../core/teams.js';
import { badRequest, forbidden } from './errors.js';

/**
 * Validates a JSON body with a shared request schema of `src/api/schemas` (strict, with
 * `origin`/`integration` accepted); 400 BAD_REQUEST with `details` = [{ path, message }].
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/** Validates query parameters (first value of each name) with a shared query schema. */
export function parseQuery<S extends z.ZodType>(schema: S, query: URLSearchParams): z.output<S> {
  // Own properties only: with `in` and plain assignment, names such as `constructor` or
  // `__proto__` were taken for already present and silently dropped instead of refused.
  const values: Record<string, string> = {};
  for (const [name, value] of query) {
    if (!Object.hasOwn(values, name)) Object.defineProperty(values, name, { value, enumerable: true, configurable: true, writable: true });
  }
  return parseBody(schema, values);
}

export function validationError(error: z.ZodError): HttpError {
  const details = formatIssues(error);
  return badRequest(`Bad Request: ${summarizeIssues(error) || 'invalid request'}`, details);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** 400 unless `id` is a UUID (job ids, scrape ids, session ids). */
export function assertJobId(id: string | undefined, name = 'job id'): string {
  if (id === undefined || !isUuid(id)) {
    throw badRequest(`Invalid ${name}: expected a UUID`, [{ path: name, message: 'must be a UUID' }]);
  }
  return id;
}

/** 403 when a record belongs to another team. */
export function assertOwner(recordTeamId: string, team: TeamConfig): void {
  if (recordTeamId !== team.id) throw forbidden('Forbidden: this job belongs to another team');
}

/** An integer query parameter within bounds; `fallback` when absent. */
export function queryInt(query: URLSearchParams, name: string, bounds: { min: number; max: number }, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw badRequest(`Bad Request: ${name} must be an integer from ${bounds.min} to ${bounds.max}`, [
      { path: name, message: `must be an integer from ${bounds.min} to ${bounds.max}` },
    ]);
  }
  return value;
}

/** A boolean query parameter ("true"/"false"/"1"/"0"); `fallback` when absent. */
export function queryBool(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw badRequest(`Bad Request: ${name} must be true or false`, [{ path: name, message: 'must be true or false' }]);
}
