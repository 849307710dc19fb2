// Wiring: builds the ServiceContext once and registers every route module; starts the
// local service (HTTP platform + demo site) and closes it again.
import type { Router } from './core/routes.js';
import type { ScrapeEngine } from './core/scrape.js';
import type { ServiceConfig, ServiceContext } from './core/service.js';
import type { TeamConfig } from './core/teams.js';
import { MemoryActivityLog } from './activity-log/log.js';
import { MemoryCreditLedger } from './billing/ledger.js';
import { defaultLocalTeam, resolveServiceConfig } from './config/defaults.js';
import { startDemoSite, type DemoSite } from './demo-site/index.js';
import { createTeamRegistry, type TeamRegistry } from './config/teams.js';
import { TeamFaultInjector } from './faults/injector.js';
import { createConsoleLogger, type ServiceLogger } from './http/logger.js';
import { imitatesOss, missingOnOss, routerWithout } from './imitate/firecrawl-oss.js';
import { createRequestListener, type RequestListener } from './http/platform.js';
import { RouteTable } from './http/router.js';
import { listen } from './http/server.js';
import { createBrowserScrapeEngine } from './browser/engine.js';
import { createRoutingScrapeEngine } from './browser/routing-engine.js';
import { registerAgentRoutes } from './agent/routes.js';
import { registerBrowserRoutes } from './browser/routes.js';
import { registerInteractRoutes } from './interact/routes.js';
import { registerMonitorRoutes } from './monitor/index.js';
import { jobStoreOf, registerJobRoutes } from './jobs/index.js';
import { RateLimiter } from './ratelimit/limiter.js';
import { MemoryScrapeRecords } from './scrape/records.js';
import { registerParseRoutes } from './parse/routes.js';
import { registerScrapeRoutes } from './scrape/routes.js';
import { createHttpScrapeEngine } from './scrape/index.js';
import { withModelFormats } from './scrape/model-formats.js';
import { demoSeedUrls, indexSiteOnFirstSearch, registerSearchRoutes } from './search/index.js';
import { createJobInspector, registerSupportRoutes } from './support/index.js';
import { registerTeamRoutes } from './team/routes.js';
import { HttpWebhookDispatcher } from './webhooks/dispatcher.js';

/** Every route module of the service, in one list. */
const ROUTE_MODULES: ReadonlyArray<(router: Router, ctx: ServiceContext) => void> = [
  registerScrapeRoutes,
  registerTeamRoutes,
  registerJobRoutes,
  registerSearchRoutes,
  registerSupportRoutes,
  registerBrowserRoutes,
  registerInteractRoutes,
  registerParseRoutes,
  registerAgentRoutes,
  // After the jobs module: crawl targets use its fetcher and crawl settings.
  registerMonitorRoutes,
];

export interface ServiceAppOptions {
  teams?: TeamConfig[];
  /** Over the defaults; `{ imitate: 'firecrawl-oss' }` answers as the open-source server does. */
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

/** The real engines: plain pages over HTTP, the rest (actions, screenshots, JS pages) in Chromium. */
function defaultScrapeEngine(config: ServiceConfig, now: () => number): ScrapeEngine {
  return createRoutingScrapeEngine({
    http: createHttpScrapeEngine({ allowNonLoopback: config.allowNonLoopback, now }),
    browser: createBrowserScrapeEngine({ allowNonLoopback: config.allowNonLoopback }),
  });
}

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
  // json and summary formats are answered by the configured model over whichever engine scrapes.
  const scrapeEngine = withModelFormats(options.scrapeEngine ?? defaultScrapeEngine(config, now));
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
    log,
    onClose: (fn) => { closeHooks.push(fn); },
  };
  // Registered first, so they run last: route modules stop their jobs before these go.
  context.onClose(() => scrapeEngine.close());
  context.onClose(() => scrapes.close());
  context.onClose(() => webhooks.close());

  const router = new RouteTable();
  const imitateOss = imitatesOss(config);
  // Imitating the open-source server: the modules still set up, their missing routes are left out.
  const registrar = imitateOss ? routerWithout(router, missingOnOss) : router;
  for (const register of ROUTE_MODULES) register(registrar, context);
  // Support ask reads crawl and batch jobs through the jobs module's store (set up above).
  context.jobInspector ??= createJobInspector({ ctx: context, jobs: jobStoreOf(context) });

  const listener = createRequestListener({
    router,
    teams,
    limiter: new RateLimiter(now),
    faults,
    now,
    log,
    closeSignal: closeController.signal,
    imitateOss,
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
  /**
   * The demo site to start beside the service (default: one with the generator's defaults);
   * false for none. Without `port` it takes the first free port after the service's.
   */
  site?: DemoSiteChoice | false;
}

export interface DemoSiteChoice {
  port?: number;
  pages?: number;
  seed?: number;
  /** Site revision, an integer ≥ 0 (default 0); see the demo site's manifest.ts. */
  revision?: number;
  /** Index the site's pages for POST /v2/search when the first search arrives (default true). */
  searchIndex?: boolean;
}

export interface LocalService {
  url: string;
  siteUrl?: string;
  context: ServiceContext;
  faults: TeamFaultInjector;
  webhooks: HttpWebhookDispatcher;
  ledger: MemoryCreditLedger;
  teams: TeamConfig[];
  /** The demo site started beside the service (its revision can change between runs). */
  site?: DemoSite;
  close(): Promise<void>;
}

export async function startLocalService(options: StartLocalServiceOptions = {}): Promise<LocalService> {
  const app = createServiceApp(options);
  let server;
  let site: DemoSite | undefined;
  try {
    server = await listen(app.listener, { port: options.port, host: options.host });
    if (options.site !== false) {
      const servicePort = Number(new URL(server.url).port);
      const choice = options.site ?? {};
      site = await startSiteNear(servicePort, { port: choice.port, pages: choice.pages, seed: choice.seed, revision: choice.revision });
      if (choice.searchIndex !== false) {
        indexSiteOnFirstSearch(app.context, { origin: site.url, urls: demoSeedUrls(site.manifest) });
      }
    }
  } catch (err) {
    await Promise.all([server?.close(), app.close()]);
    throw err;
  }
  const stopServer = server.close;
  const stopSite = site ? () => site.close() : () => Promise.resolve();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= Promise.all([stopServer(), app.close()]).then(stopSite);
    return closing;
  };
  return {
    url: server.url,
    siteUrl: site?.url,
    context: app.context,
    faults: app.faults,
    webhooks: app.webhooks,
    ledger: app.ledger,
    teams: app.teams.all(),
    ...(site ? { site } : {}),
    close,
  };
}

const SITE_PORT_ATTEMPTS = 20;

/** A fixed site port as given; otherwise the first free port after the service's (any when that is 0). */
async function startSiteNear(servicePort: number, site: { port?: number; pages?: number; seed?: number; revision?: number }): Promise<DemoSite> {
  if (site.port !== undefined || servicePort === 0) return startDemoSite({ ...site, port: site.port ?? 0 });
  for (let port = servicePort + 1; port <= Math.min(65535, servicePort + SITE_PORT_ATTEMPTS); port++) {
    try {
      return await startDemoSite({ ...site, port });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  return startDemoSite({ ...site, port: 0 });
}
