// x-idempotency-key on job starts: a key maps to the job it started, per team, for as
// long as job results live. A reused key answers 409 with that job's id (the hosted
// service omits the id; clients must cope either way).
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../core/http-error.js';
import { badRequest } from '../http/errors.js';
import { isUuid } from '../http/validate.js';

export const IDEMPOTENCY_HEADER = 'x-idempotency-key';

/** The request's idempotency key; 400 when present but not a UUID. */
export function readIdempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers[IDEMPOTENCY_HEADER];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === '') return undefined;
  if (!isUuid(value)) {
    throw badRequest('Bad Request: x-idempotency-key must be a UUID', [{ path: [IDEMPOTENCY_HEADER], message: 'must be a UUID' }]);
  }
  return value.toLowerCase();
}

export class IdempotencyKeys {
  private readonly keys = new Map<string, { jobId: string; at: number }>();

  constructor(private readonly ttlMs: number) {}

  /** 409 when the key already started a job for this team. */
  assertUnused(teamId: string, key: string | undefined, now: number): void {
    if (key === undefined) return;
    const entry = this.keys.get(`${teamId}:${key}`);
    if (entry && now - entry.at < this.ttlMs) {
      throw new HttpError(409, 'Idempotency key already used', { code: 'IDEMPOTENCY_KEY_USED', extra: { id: entry.jobId } });
    }
  }

  remember(teamId: string, key: string | undefined, jobId: string, now: number): void {
    if (key !== undefined) this.keys.set(`${teamId}:${key}`, { jobId, at: now });
  }

  sweep(now: number): void {
    for (const [k, v] of this.keys) if (now - v.at >= this.ttlMs) this.keys.delete(k);
  }
}
