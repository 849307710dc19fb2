// The zod schema of the service config file (--config / WEBDATA_SERVICE_CONFIG).
import { z } from 'zod';
import { IMITATIONS } from '../core/service.js';
import { TEAM_DEFAULTS } from './defaults.js';

const ROUTE_GROUPS = [
  'scrape', 'interact', 'crawl', 'crawl_status', 'batch_scrape', 'batch_status',
  'map', 'search', 'browser', 'support', 'team', 'extract',
] as const;

const probability = z.number().min(0).max(1);
const positiveInt = z.number().int().positive();

const validRegex = z.string().refine((s) => {
  try { new RegExp(s); return true; } catch { return false; }
}, 'must be a valid regular expression');

export const faultConfigSchema = z.strictObject({
  errorRate: probability.optional(),
  errorEvery: positiveInt.optional(),
  errorOffset: z.number().int().min(0).optional(),
  errorStatus: z.number().int().min(400).max(599).optional(),
  routes: z.array(z.string().regex(/^(GET|POST|DELETE) \/\S*$/, 'must look like "GET /v2/crawl/:id"')).optional(),
  latencyMs: z.number().int().min(0).optional(),
  rateLimitStorm: z.strictObject({ until: z.number(), retryAfterSec: positiveInt }).optional(),
  webhookDropRate: probability.optional(),
  webhookDelayMs: z.number().int().min(0).optional(),
  failKickoffPattern: validRegex.optional(),
  dropNextStartResponses: z.number().int().min(0).optional(),
  stallJobsAfterPages: z.number().int().min(0).optional(),
});

export const teamConfigSchema = z.strictObject({
  id: z.string().min(1),
  apiKeys: z.array(z.string().min(1)).min(1),
  credits: z.number().min(0).default(TEAM_DEFAULTS.credits),
  rateLimits: z.partialRecord(z.enum(ROUTE_GROUPS), positiveInt).default({}),
  concurrency: positiveInt.default(TEAM_DEFAULTS.concurrency),
  maxBrowserSessions: z.number().int().min(0).default(TEAM_DEFAULTS.maxBrowserSessions),
  webhookSecret: z.string().min(1).optional(),
  features: z.strictObject({
    ignoreRobotsTxt: z.boolean().default(false),
    zeroDataRetention: z.boolean().default(false),
    searchEnterprise: z.array(z.enum(['anon', 'zdr'])).default([]),
  }).default({ ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] }),
  faults: faultConfigSchema.optional(),
});

export const serviceConfigSchema = z.strictObject({
  jobTtlMs: positiveInt.optional(),
  webhook: z.strictObject({
    timeoutMs: positiveInt.optional(),
    retryDelaysMs: z.array(z.number().int().min(0)).optional(),
  }).optional(),
  allowNonLoopback: z.boolean().optional(),
  pageByteLimit: positiveInt.optional(),
  supportBudgetMs: positiveInt.optional(),
  imitate: z.enum(IMITATIONS).optional(),
});

export const configFileSchema = z.strictObject({
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  teams: z.array(teamConfigSchema).min(1),
  service: serviceConfigSchema.optional(),
  site: z.union([
    z.literal(false),
    z.strictObject({
      port: z.number().int().min(0).max(65535).optional(),
      pages: positiveInt.optional(),
      seed: z.number().int().optional(),
    }),
  ]).optional(),
}).superRefine((file, ctx) => {
  const teamIds = new Map<string, number>();
  const keyOwners = new Map<string, string>();
  file.teams.forEach((team, i) => {
    if (teamIds.has(team.id)) {
      ctx.addIssue({ code: 'custom', path: ['teams', i, 'id'], message: `duplicate team id "${team.id}"` });
    }
    teamIds.set(team.id, i);
    team.apiKeys.forEach((key, k) => {
      const owner = keyOwners.get(key);
      if (owner !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['teams', i, 'apiKeys', k], message: `API key already used by team "${owner}"` });
      }
      keyOwners.set(key, team.id);
    });
  });
});

export type ConfigFile = z.output<typeof configFileSchema>;
