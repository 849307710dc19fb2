// Team configuration: keys, credits, rate limits, features.
import type { FaultConfig } from './faults.js';
import type { RouteGroup } from './routes.js';

export interface TeamFeatures {
  ignoreRobotsTxt: boolean;
  zeroDataRetention: boolean;
  /** Search `enterprise` options this team may use. */
  searchEnterprise: Array<'anon' | 'zdr'>;
}

export interface TeamConfig {
  id: string;
  apiKeys: string[];
  /** Plan credits per billing period (a calendar month). */
  credits: number;
  /** Requests per minute per route group; absent = unlimited. */
  rateLimits: Partial<Record<RouteGroup, number>>;
  /** Pages scraped at once across all of this team's jobs. */
  concurrency: number;
  maxBrowserSessions: number;
  /** HMAC secret for webhook signatures; no signature header when absent. */
  webhookSecret?: string;
  features: TeamFeatures;
  faults?: FaultConfig;
}
