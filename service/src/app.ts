// Wiring: builds the ServiceContext once and registers every route module; starts the
// local service (HTTP platform + demo site) and closes it again.
import type { Router, ScrapeEngine, ServiceConfig, ServiceContext, TeamConfig } from './core/contract.js';
import { HttpError } from './core/contract.js';
import { MemoryActivityLog } from './activity/log.js';
import { MemoryCreditLedger } from './billing/ledger.js';
import { defaultLocalTeam, resolveServiceConfig } from './config/defaults.js';
import { createTeamRegistry, type TeamRegistry } from './config/teams.js';
import { TeamFaultInjector } from './faults/injector.js';
import { createConsoleLogger, type ServiceLogger } from './http/logger.js';
import { createRequestListener, type RequestListener } from './http/platform.js';
import { RouteTable } from './http/router.js';
import { listen } from './http/server.js';
import { registerBrowserRoutes } from './browser/routes.js';
import { registerInteractRoutes } from './interact/routes.js';
import { registerJobRoutes } from './jobs/index.js';
import { RateLimiter } from './ratelimit/limiter.js';
import { MemoryScrapeRecords } from './scrape-routes/records.js';
import { registerScrapeRoutes } from './scrape-routes/routes.js';
import { registerTeamRoutes } from './team-routes/routes.js';
import { HttpWebhookDispatcher } from './webhooks/dispatcher.js';

/** Every route module of the service, in one list. */
const ROUTE_MODULES: ReadonlyArray<(router: Router, ctx: ServiceContext) => void> = [
  registerScrapeRoutes,
  registerTeamRoutes,
  registerJobRoutes,
  registerBrowserRoutes,
  registerInteractRoutes,
];

export interface ServiceAppOptions {
  teams?: TeamConfig[];
  config?: Partial<ServiceConfig>;
  scrapeEngine?: ScrapeEngine;
  now?: () => number;
  /** Random source for fault rates (tests pass a fixed one). */
  random?: () => number;
  logger?: ServiceLogger;
}

export interface ServiceApp {
  context: ServiceContext;
  teams: TeamRegistry;
  router: RouteTable;
  faults: TeamFaultInjector;
  ledger: MemoryCreditLedger;
  webhooks: HttpWebhookDispatcher;
  scrapes: MemoryScrapeRecords;
  listener: RequestListener;
  /** Runs every onClose hook (latest first), once. */
  close(): Promise<void>;
}

/** Answers every scrape with 503 until a real engine is given. */
const unavailableScrapeEngine: ScrapeEngine = {
  scrape: () => Promise.reject(new HttpError(503, 'No scrape engine is configured', { code: 'SCRAPE_ENGINE_UNAVAILABLE' })),
  close: () => Promise.resolve(),
};

/** Builds the context and the route table, without listening. */
export function createServiceApp(options: ServiceAppOptions = {}): ServiceApp {
  const now = options.now ?? Date.now;
  const log = options.logger ?? createConsoleLogger();
  const config = resolveServiceConfig(options.config);
  const teams = createTeamRegistry(options.teams && options.teams.length > 0 ? options.teams : [defaultLocalTeam()]);
  const faults = new TeamFaultInjector(teams, options.random);
  const ledger = new MemoryCreditLedger(teams, now);
  const webhooks = new HttpWebhookDispatcher({ config, faults, log });
  const scrapes = new MemoryScrapeRecords(now);
  const scrapeEngine = options.scrapeEngine ?? unavailableScrapeEngine;
  const closeController = new AbortController();
  const closeHooks: Array<() => Promise<void> | void> = [];

  const context: ServiceContext = {
    config,
    teams,
    ledger,
    activity: new MemoryActivityLog(now),
    webhooks,
    faults,
    scrapeEngine,
    scrapes,
    now,
    onClose: (fn) => { closeHooks.push(fn); },
  };
  // Registered first, so they run last: route modules stop their jobs before these go.
  context.onClose(() => scrapeEngine.close());
  context.onClose(() => scrapes.close());
  context.onClose(() => webhooks.close());

  const router = new RouteTable();
  for (const register of ROUTE_MODULES) register(router, context);

  const listener = createRequestListener({
    router,
    teams,
    limiter: new RateLimiter(now),
    faults,
    now,
    log,
    closeSignal: closeController.signal,
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      closeController.abort(new Error('service closing'));
      for (const hook of [...closeHooks].reverse()) {
        try {
          await hook();
        } catch (err) {
          log.error('close hook failed', err);
        }
      }
    })();
    return closing;
  };

  return { context, teams, router, faults, ledger, webhooks, scrapes, listener, close };
}

export interface StartLocalServiceOptions extends ServiceAppOptions {
  port?: number;
  host?: string;
  /** The demo site to start beside the service; false for none. */
  site?: { port?: number; pages?: number; seed?: number | string } | false;
}

export interface LocalService {
  url: string;
  siteUrl?: string;
  context: ServiceContext;
  faults: TeamFaultInjector;
  webhooks: HttpWebhookDispatcher;
  ledger: MemoryCreditLedger;
  teams: TeamConfig[];
  close(): Promise<void>;
}

export async function startLocalService(options: StartLocalServiceOptions = {}): Promise<LocalService> {
  const app = createServiceApp(options);
  let server;
  try {
    server = await listen(app.listener, { port: options.port, host: options.host });
  } catch (err) {
    await app.close();
    throw err;
  }
  const stopServer = server.close;
  const close = async (): Promise<void> => {
    await Promise.all([stopServer(), app.close()]);
  };
  return {
    url: server.url,
    context: app.context,
    faults: app.faults,
    webhooks: app.webhooks,
    ledger: app.ledger,
    teams: app.teams.all(),
    close,
  };
}
