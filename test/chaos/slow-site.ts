// The demo site behind a pause: each page request waits `pageDelayMs` before it is forwarded
// (robots.txt and sitemaps do not), so a crawl or batch of a few dozen pages lasts seconds and
// a fault can land while it scrapes. The Host header is forwarded as sent, so the site's links
// name this origin. Every page request is recorded with its arrival time.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DemoSite } from '../../packages/service/src/demo-site/index.js';

export interface SiteRequest {
  at: number;
  /** Path without query. */
  path: string;
}

export interface SlowSite {
  url: string;
  requests: SiteRequest[];
  /** Called as each request arrives (before the pause). */
  onRequest?: (r: SiteRequest) => void;
  close(): Promise<void>;
}

const UNDELAYED = /^\/(robots\.txt|sitemap.*|sitemaps\/.*)$/;

export async function startSlowSite(site: DemoSite, pageDelayMs: number): Promise<SlowSite> {
  const requests: SiteRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const slow: SlowSite = {
    url: '',
    requests,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = request({ host: '127.0.0.1', port: site.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const entry = { at: Date.now(), path };
    requests.push(entry);
    slow.onRequest?.(entry);
    if (UNDELAYED.test(path)) return forward(req, res);
    const timer = setTimeout(() => {
      timers.delete(timer);
      forward(req, res);
    }, pageDelayMs);
    timers.add(timer);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  slow.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return slow;
}
