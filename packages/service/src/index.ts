// The local Web Data Extraction Service API v2: start it programmatically.
export {
  startLocalService,
  createServiceApp,
  type LocalService,
  type StartLocalServiceOptions,
  type DemoSiteChoice,
  type ServiceApp,
  type ServiceAppOptions,
} from './app.js';
export {
  DEFAULT_API_KEY,
  DEFAULT_TEAM_ID,
  DEFAULT_WEBHOOK_SECRET,
  DEFAULT_SERVICE_CONFIG,
  defaultLocalTeam,
  resolveServiceConfig,
  ConfigError,
  loadConfigFile,
  parseConfig,
  type LoadedConfig,
} from './config/index.js';
export { IMITATIONS } from './core/service.js';
export { TeamFaultInjector } from './faults/injector.js';
export { HttpWebhookDispatcher } from './webhooks/dispatcher.js';
export { SIGNATURE_HEADER, signWebhookBody, verifyWebhookSignature } from './webhooks/index.js';
export { PRICES, scrapeCredits, mapCredits, searchCredits, browserCredits } from './billing/prices.js';
export { HttpError } from './core/http-error.js';
export type * from './core/routes.js';
export type * from './core/teams.js';
export type * from './core/faults.js';
export type * from './core/credits.js';
export type * from './core/activity.js';
export type * from './core/webhooks.js';
export type * from './core/scrape.js';
export type * from './core/jobs.js';
export type * from './core/service.js';
