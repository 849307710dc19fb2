import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookHandler, type WebhookHandlerOptions } from './handler.js';

export interface WebhookServer {
  url: string;
  /**
   * Stops accepting deliveries, then waits (up to `drainMs`, default 10 s) for signals of
   * deliveries already answered, so the caller can close its Temporal connection after it.
   */
  close(drainMs?: number): Promise<void>;
}

/** A standalone receiver on `host:port` (default 127.0.0.1, a free port); the path is `/webhooks`. */
export async function startWebhookServer(options: WebhookHandlerOptions & { port?: number; host?: string }): Promise<WebhookServer> {
  const handler = createWebhookHandler(options);
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/webhooks')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"ok":false,"reason":"not found"}');
      return;
    }
    handler(req, res);
  });
  // Deliveries have a 10 s window; never let a slow client hold a socket longer.
  server.requestTimeout = 10_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/webhooks`,
    close: async (drainMs?: number) => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      const unsettled = await handler.drain(drainMs);
      if (unsettled > 0) options.log?.(`webhook receiver: closed with ${unsettled} signal(s) still in flight`);
    },
  };
}
