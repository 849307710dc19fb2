// Defaults for the service configuration and for the team used when no config file is given.
import { STATUS_PAGE_BYTE_LIMIT } from 'webdata-contract';
import type { ServiceConfig } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';

export const DEFAULT_SERVICE_CONFIG: ServiceConfig = {
  jobTtlMs: 24 * 60 * 60 * 1000,
  webhook: { timeoutMs: 10_000, retryDelaysMs: [1000, 5000, 15000] },
  allowNonLoopback: false,
  pageByteLimit: STATUS_PAGE_BYTE_LIMIT,
};

export const DEFAULT_TEAM_ID = 'local';
export const DEFAULT_API_KEY = 'local-dev-key';
export const DEFAULT_WEBHOOK_SECRET = 'local-dev-webhook-secret';

/** Team defaults for fields a config file leaves out. */
export const TEAM_DEFAULTS = {
  credits: 1_000_000,
  concurrency: 10,
  maxBrowserSessions: 5,
} as const;

/** The single team of a service started without a config: generous and fully enabled, for local development. */
export function defaultLocalTeam(): TeamConfig {
  return {
    id: DEFAULT_TEAM_ID,
    apiKeys: [DEFAULT_API_KEY],
    credits: TEAM_DEFAULTS.credits,
    rateLimits: {},
    concurrency: TEAM_DEFAULTS.concurrency,
    maxBrowserSessions: TEAM_DEFAULTS.maxBrowserSessions,
    webhookSecret: DEFAULT_WEBHOOK_SECRET,
    features: { ignoreRobotsTxt: true, zeroDataRetention: true, searchEnterprise: ['anon', 'zdr'] },
  };
}

/** Merges a partial config over the defaults (the webhook object member by member). */
export function resolveServiceConfig(partial: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    ...DEFAULT_SERVICE_CONFIG,
    ...partial,
    webhook: { ...DEFAULT_SERVICE_CONFIG.webhook, ...partial.webhook },
  };
}
