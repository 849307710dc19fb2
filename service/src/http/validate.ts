// Helpers route modules use to check input: bodies against the shared zod schemas,
// job ids, ownership and query parameters. All throw HttpError values.
import type { z } from 'zod';
import type { TeamConfig } from '../core/contract.js';
import { badRequest, forbidden } from './errors.js';

/** Keys every body may carry because official SDKs send them (contract notes). */
const TELEMETRY_KEYS = ['origin', 'integration'] as const;

export interface IssueDetail {
  path: Array<string | number>;
  message: string;
}

export function issueDetails(issues: ReadonlyArray<z.core.$ZodIssue>): IssueDetail[] {
  return issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === 'number' ? p : String(p))),
    message: issue.message,
  }));
}

function describe(details: IssueDetail[]): string {
  const first = details[0];
  const where = first.path.length ? `${first.path.join('.')}: ` : '';
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return `Bad Request: ${where}${first.message}${more}`;
}

/**
 * Validates a JSON body with a (strict) shared request schema. String `origin` and
 * `integration` members are accepted and removed before validation.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const telemetryIssues: IssueDetail[] = [];
  let input = body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    for (const key of TELEMETRY_KEYS) {
      if (!(key in copy)) continue;
      if (typeof copy[key] !== 'string') telemetryIssues.push({ path: [key], message: 'Invalid input: expected string' });
      delete copy[key];
    }
    input = copy;
  }
  const parsed = schema.safeParse(input);
  const details = [...telemetryIssues, ...(parsed.success ? [] : issueDetails(parsed.error.issues))];
  if (details.length > 0 || !parsed.success) {
    throw badRequest(details.length ? describe(details) : 'Bad Request', details);
  }
  return parsed.data;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** 400 unless `id` is a UUID (job ids, scrape ids, session ids). */
export function assertJobId(id: string | undefined, name = 'job id'): string {
  if (id === undefined || !isUuid(id)) {
    throw badRequest(`Invalid ${name}: expected a UUID`, [{ path: [name], message: 'Invalid UUID' }]);
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
      { path: [name], message: `must be an integer from ${bounds.min} to ${bounds.max}` },
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
  throw badRequest(`Bad Request: ${name} must be true or false`, [{ path: [name], message: 'must be true or false' }]);
}
