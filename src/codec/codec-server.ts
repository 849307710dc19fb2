// The remote codec server of Temporal's codec protocol: POST /encode and POST /decode, each with
// JSON `{ "payloads": [{ "metadata": { k: base64 }, "data": base64 }] }` answered in the same
// shape. The Temporal UI calls it from the browser (so CORS, for its origins only) and the
// `temporal` CLI with --codec-endpoint. With a token set, every request but the CORS preflight
// must carry `Authorization: Bearer <token>`. Errors are answered as `{ "error": "<one line>" }`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload } from '@temporalio/common';
import type { PayloadKeyring } from './keyring.js';
import { EncryptionCodec, PayloadDecryptionError } from './payload-codec.js';

/** The local Temporal UI's origins (`temporal server start-dev`, `webdata dev`). */
export const DEFAULT_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];
/** Largest request body: a page of history's payloads fits many times. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface CodecServerOptions {
  keyring: PayloadKeyring;
  port?: number;
  /** Default 127.0.0.1: the UI's browser and the CLI usually run on the same host or behind a proxy. */
  host?: string;
  /** Origins whose pages may call it (the UI's); default DEFAULT_UI_ORIGINS. */
  origins?: readonly string[];
  /** When set, requests must carry `Authorization: Bearer <token>`. */
  authToken?: string;
  maxBodyBytes?: number;
  log?: (line: string) => void;
}

export interface CodecServer {
  /** `http://host:port`: the UI's codec endpoint and the CLI's --codec-endpoint. */
  url: string;
  port: number;
  /** Replaces the allowed origins (the dev stack learns its UI's port after the server starts). */
  setOrigins(origins: readonly string[]): void;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const codec = new EncryptionCodec(options.keyring);
  let origins = new Set(options.origins ?? DEFAULT_UI_ORIGINS);
  const tokenHash = options.authToken ? sha256(options.authToken) : undefined;
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : err instanceof PayloadDecryptionError ? 422 : 500;
      if (status === 500) options.log?.(`codec server: ${(err as Error)?.message ?? String(err)}`);
      if (status === 413) res.setHeader('Connection', 'close');
      answer(res, status, { error: status === 500 ? 'internal error (see the codec server log)' : (err as Error).message });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!origins.has(origin)) throw new HttpError(403, `origin ${origin} is not allowed (the codec server's --origin list)`);
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      res.setHeader('Access-Control-Max-Age', '600');
      res.writeHead(204).end();
      return;
    }
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    const op = path.endsWith('/encode') ? 'encode' : path.endsWith('/decode') ? 'decode' : undefined;
    if (!op) throw new HttpError(404, `no such route ${req.method} ${path || '/'}: POST /encode or /decode`);
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} ${path}: use POST`);
    if (tokenHash) {
      const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
      if (!given || !timingSafeEqual(sha256(given), tokenHash)) {
        res.setHeader('WWW-Authenticate', 'Bearer');
        throw new HttpError(401, 'missing or wrong Authorization: Bearer token');
      }
    }
    const payloads = parsePayloads(await readBody(req, limit));
    const out = op === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
    answer(res, 200, { payloads: out.map(toJson) });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    setOrigins(list) {
      origins = new Set(list);
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Answered at once; the rest is read and dropped (a socket closed on unread data could
        // lose the answer), up to a bound past which the connection is cut.
        if (!over) reject(new HttpError(413, `request body over ${limit} bytes`));
        over = true;
        chunks.length = 0;
        if (size > 4 * limit) req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function bytes(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64.test(value)) throw new HttpError(400, `${field}: must be a base64 string`);
  return new Uint8Array(Buffer.from(value, 'base64'));
}

function parsePayloads(text: string): Payload[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body: must be JSON { "payloads": [...] }');
  }
  const list = (body as { payloads?: unknown })?.payloads;
  if (!Array.isArray(list)) throw new HttpError(400, 'payloads: must be an array');
  return list.map((p: unknown, i) => {
    if (typeof p !== 'object' || p === null) throw new HttpError(400, `payloads.${i}: must be an object`);
    const { metadata, data } = p as { metadata?: unknown; data?: unknown };
    if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null)) throw new HttpError(400, `payloads.${i}.metadata: must be an object`);
    return {
      metadata: Object.fromEntries(Object.entries((metadata ?? {}) as Record<string, unknown>).map(([k, v]) => [k, bytes(v, `payloads.${i}.metadata.${k}`)])),
      data: data === undefined || data === null ? new Uint8Array() : bytes(data, `payloads.${i}.data`),
    };
  });
}

function toJson(p: Payload): { metadata: Record<string, string>; data: string } {
  const b64 = (u: Uint8Array | null | undefined) => Buffer.from(u ?? new Uint8Array()).toString('base64');
  return { metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])), data: b64(p.data) };
}
