// Opaque activity cursors: the sequence number of the last record returned.
import { badRequest } from '../http/errors.js';

export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ s: seq }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown };
    if (typeof value.s === 'number' && Number.isInteger(value.s) && value.s >= 0) return value.s;
  } catch {
    // fall through to the 400 below
  }
  throw badRequest('Bad Request: invalid cursor', [{ path: 'cursor', message: 'is not a cursor of this listing' }]);
}
