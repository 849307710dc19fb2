// The local service and its demo site, with a counter around the service's request listener:
// requests per route, response bytes on the wire (socket bytesWritten: status line, headers
// and body) and, per job, the moment the service first answered a status request saying the
// job was finished ("when the client knew"). Counting happens in the service process, so
// every client — the pipeline's worker, the Firecrawl SDK, a hand-written loop — is measured
// the same way, with no proxy hop in between.
//
// Built from createServiceApp + listen (what startLocalService does) so the listener can be
// wrapped; the scrape engine is the plain HTTP engine without its page cache, so repeated
// crawls of the same site cost the same.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createServiceApp } from '../../packages/service/src/app.js';
import { defaultLocalTeam } from '../../packages/service/src/config/defaults.js';
import type { TeamConfig } from '../../packages/service/src/core/teams.js';
import { startDemoSite, type DemoSite } from '../../packages/service/src/demo-site/index.js';
import { silentLogger } from '../../packages/service/src/http/logger.js';
import { listen } from '../../packages/service/src/http/server.js';
import { createHttpScrapeEngine } from '../../packages/service/src/scrape/index.js';

export interface TrafficSnapshot {
  requests: number;
  /** Bytes the service sent (responses, wire level). */
  bytesOut: number;
  /** Bytes the service received (requests, wire level). */
  bytesIn: number;
  byRoute: Record<string, number>;
  /** Answers 429 (rate limited). */
  rateLimited: number;
}

/** What the service needs of the site it crawls: its origin, and stopping it with the service. */
export interface SiteHandle {
  url: string;
  close(): Promise<void>;
}

export interface CountingService<S extends SiteHandle = DemoSite> {
  url: string;
  siteUrl: string;
  site: S;
  apiKey: string;
  webhookSecret: string;
  team: TeamConfig;
  /** Totals since start; subtract two snapshots to get one phase. */
  snapshot(): TrafficSnapshot;
  /** Epoch ms when the service first answered a status request of this job with a finished status. */
  firstFinishedAnswer(jobId: string): number | undefined;
  close(): Promise<void>;
}

export interface CountingServiceOptions {
  pages: number;
  /** Team concurrency (pages scraped at once across the team's jobs). Default 10, the local team's. */
  concurrency?: number;
}

const STATUS_PATH = /^\/v2\/(?:crawl|batch\/scrape)\/([0-9a-f-]{36})(?:\?|$)/i;
const FINISHED = /"status"\s*:\s*"(completed|failed|cancelled)"/;
const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export function routeKey(method: string, url: string): string {
  const path = url.split('?')[0].replace(ID, ':id');
  return `${method} ${path}`;
}

export function diff(after: TrafficSnapshot, before: TrafficSnapshot): TrafficSnapshot {
  const byRoute: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.byRoute)) {
    const d = v - (before.byRoute[k] ?? 0);
    if (d > 0) byRoute[k] = d;
  }
  return { requests: after.requests - before.requests, bytesOut: after.bytesOut - before.bytesOut, bytesIn: after.bytesIn - before.bytesIn, byRoute, rateLimited: after.rateLimited - before.rateLimited };
}

export async function startCountingService(options: CountingServiceOptions): Promise<CountingService> {
  return startCountingServiceFor(await startDemoSite({ pages: options.pages }), options);
}

/** The same service in front of a site started elsewhere (another process); closing it closes the site too. */
export async function startCountingServiceFor<S extends SiteHandle>(site: S, options: Pick<CountingServiceOptions, 'concurrency'>): Promise<CountingService<S>> {
  const team: TeamConfig = { ...defaultLocalTeam(), concurrency: options.concurrency ?? 10, credits: 100_000_000 };
  const app = createServiceApp({ teams: [team], scrapeEngine: createHttpScrapeEngine({ cache: false }), logger: silentLogger });

  let requests = 0;
  let rateLimited = 0;
  const byRoute = new Map<string, number>();
  const finished = new Map<string, number>();
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    requests += 1;
    res.once('finish', () => {
      if (res.statusCode === 429) rateLimited += 1;
    });
    const key = routeKey(req.method ?? 'GET', req.url ?? '/');
    byRoute.set(key, (byRoute.get(key) ?? 0) + 1);
    const job = req.method === 'GET' ? STATUS_PATH.exec(req.url ?? '')?.[1] : undefined;
    if (job && !finished.has(job)) sniffFinished(res, () => {
      if (!finished.has(job)) finished.set(job, Date.now());
    });
    app.listener(req, res);
  };

  const server = await listen(listener).catch(async (err: unknown) => {
    await Promise.all([app.close(), site.close()]);
    throw err;
  });
  const live = new Set<Socket>();
  let closedOut = 0;
  let closedIn = 0;
  server.server.on('connection', (socket: Socket) => {
    live.add(socket);
    socket.once('close', () => {
      live.delete(socket);
      closedOut += socket.bytesWritten;
      closedIn += socket.bytesRead;
    });
  });

  return {
    url: server.url,
    siteUrl: site.url,
    site,
    apiKey: team.apiKeys[0],
    webhookSecret: team.webhookSecret ?? '',
    team,
    snapshot() {
      let out = closedOut;
      let inn = closedIn;
      for (const s of live) {
        out += s.bytesWritten;
        inn += s.bytesRead;
      }
      return { requests, bytesOut: out, bytesIn: inn, byRoute: Object.fromEntries(byRoute), rateLimited };
    },
    firstFinishedAnswer: (jobId) => finished.get(jobId),
    async close() {
      await Promise.all([server.close(), app.close()]);
      await site.close();
    },
  };
}

/** Calls `onFinished` when the response's first bytes carry a terminal job status (it is near the start). */
function sniffFinished(res: ServerResponse, onFinished: () => void): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const chunk = args[0];
    const head = typeof chunk === 'string' ? chunk.slice(0, 200) : Buffer.isBuffer(chunk) ? chunk.subarray(0, 200).toString('utf8') : '';
    if (res.statusCode === 200 && FINISHED.test(head)) onFinished();
    return end(...args);
  }) as typeof res.end;
}
