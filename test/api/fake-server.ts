// In-process HTTP server on 127.0.0.1:0 that records every request and answers with a
// per-test handler. Not a test file itself (no `.test.ts`), shared by the api tests.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
}

export interface FakeResponse {
  status?: number;
  body?: unknown;
  /** Sent verbatim instead of JSON. */
  raw?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type Handler = (req: RecordedRequest, base: string) => FakeResponse | Promise<FakeResponse>;

export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  /** TCP connections accepted so far (to check keep-alive reuse). */
  connections = 0;
  handler: Handler = () => ({ status: 200, body: { success: true } });
  private server: Server | undefined;
  base = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          const url = new URL(req.url ?? '/', this.base);
          const rawBody = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = rawBody ? (JSON.parse(rawBody) as unknown) : undefined;
          } catch {
            body = rawBody;
          }
          const recorded: RecordedRequest = {
            method: req.method ?? '',
            path: url.pathname,
            query: Object.fromEntries(url.searchParams),
            headers: req.headers,
            rawBody,
            body,
          };
          this.requests.push(recorded);
          const out = await this.handler(recorded, this.base);
          if (out.delayMs) await new Promise((r) => setTimeout(r, out.delayMs));
          if (res.destroyed) return;
          const text = out.raw ?? (out.body === undefined ? '' : JSON.stringify(out.body));
          res.writeHead(out.status ?? 200, {
            'content-type': out.raw !== undefined ? 'text/html' : 'application/json',
            ...out.headers,
          });
          res.end(text);
        })();
      });
    });
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.base = `http://127.0.0.1:${port}`;
    return this;
  }

  reset(handler?: Handler): void {
    this.requests.length = 0;
    if (handler) this.handler = handler;
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

/**
 * A server of its own for one test whose client gives up on a request (timeout, abort): that
 * request can still reach its server later, on a loaded machine after the next test has begun,
 * and must not count among the next test's requests on the shared server.
 */
export async function withOwnServer<T>(handler: Handler, fn: (server: FakeServer) => Promise<T>): Promise<T> {
  const own = await new FakeServer().start();
  own.reset(handler);
  try {
    return await fn(own);
  } finally {
    await own.stop();
  }
}
