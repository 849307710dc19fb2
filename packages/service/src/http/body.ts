// Reads a JSON request body with a size cap; over the cap the read stops at once.
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../core/http-error.js';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Thrown when the body is over the limit; the platform answers 413 and closes the connection. */
export class PayloadTooLargeError extends HttpError {
  constructor(limit: number) {
    super(413, `Payload too large: request bodies are limited to ${limit} bytes`, { code: 'PAYLOAD_TOO_LARGE' });
    this.name = 'PayloadTooLargeError';
  }
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

export function readRawBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new PayloadTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(new PayloadTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => { cleanup(); resolve(Buffer.concat(chunks)); };
    const onError = (err: Error): void => { cleanup(); reject(err); };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The parsed JSON body, or undefined when the request has none. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  const raw = await readRawBody(req, limit);
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (err) {
    throw new HttpError(400, `Bad Request: invalid JSON body (${(err as Error).message})`, { code: 'BAD_REQUEST_INVALID_JSON' });
  }
}
