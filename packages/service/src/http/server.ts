// Binds the request listener to a node:http server on loopback and closes it fully.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from './platform.js';

export interface ListeningServer {
  server: Server;
  url: string;
  /** Stops accepting, drops idle and open connections, resolves when the server is closed. */
  close(): Promise<void>;
}

export function formatOrigin(host: string, port: number): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

export function listen(listener: RequestListener, opts: { port?: number; host?: string } = {}): Promise<ListeningServer> {
  const host = opts.host ?? '127.0.0.1';
  const server = createServer(listener);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve({
        server,
        url: formatOrigin(host, port),
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
      });
    });
  });
}
