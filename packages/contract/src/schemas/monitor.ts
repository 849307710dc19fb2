// /v2/monitor (contract notes "What the hosted service added by 2026"): recurring checks run
// by the service itself over scrape and crawl targets, each page of a check compared with
// the check before it. Schemas never apply defaults (see common.ts); the service applies
// them (timezone UTC, retentionDays 30, list limit 25).
import { z } from 'zod';
import { body, httpUrl, nonEmpty, queryInt, stringRecord, uuid } from './common.js';
import { crawlRequestSchema } from './crawl.js';
import { scrapeOptionsSchema } from './scrape.js';
import {
  MAX_MONITOR_GOAL,
  MAX_MONITOR_LIST_LIMIT,
  MAX_MONITOR_NAME,
  MAX_MONITOR_RECIPIENTS,
  MAX_MONITOR_RETENTION_DAYS,
  MAX_MONITOR_SCHEDULE_TEXT,
  MAX_MONITOR_TARGETS,
} from '../defaults.js';

export const monitorWebhookEventSchema = z.enum(['monitor.page', 'monitor.check.completed']);

/** Like the job webhooks, with the monitor's own event names. */
export const monitorWebhookSchema = z.union(
  [
    httpUrl,
    z.strictObject({
      url: httpUrl,
      headers: stringRecord.optional(),
      metadata: z.record(z.string(), z.string({ error: 'metadata values must be strings' })).optional(),
      events: z.array(monitorWebhookEventSchema).optional(),
    }),
  ],
  { error: 'must be a URL string or an object with url' },
);

export const monitorScheduleSchema = z
  .strictObject({
    cron: z.string().min(1).max(MAX_MONITOR_SCHEDULE_TEXT).optional(),
    text: z.string().min(1).max(MAX_MONITOR_SCHEDULE_TEXT).optional(),
    timezone: z.string().min(1).max(MAX_MONITOR_SCHEDULE_TEXT).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.cron === undefined && s.text === undefined) ctx.addIssue({ code: 'custom', path: ['cron'], message: 'cron or text is required' });
    if (s.cron !== undefined && s.text !== undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: 'give cron or text, not both' });
  });

/** The crawl options of a crawl target: a crawl request's, without url, webhook and prompt. */
const crawlTargetOptions = crawlRequestSchema.omit({ url: true, webhook: true, prompt: true, scrapeOptions: true, origin: true, integration: true }).partial();

export const monitorScrapeTargetSchema = z.strictObject({
  id: uuid.optional(),
  type: z.literal('scrape'),
  urls: z.array(httpUrl).min(1),
  scrapeOptions: scrapeOptionsSchema.optional(),
});

export const monitorCrawlTargetSchema = z.strictObject({
  id: uuid.optional(),
  type: z.literal('crawl'),
  url: httpUrl,
  crawlOptions: crawlTargetOptions.optional(),
  scrapeOptions: scrapeOptionsSchema.optional(),
});

export const monitorTargetSchema = z.discriminatedUnion('type', [monitorScrapeTargetSchema, monitorCrawlTargetSchema], {
  error: 'must be a target with type "scrape" (urls) or "crawl" (url)',
});

export const monitorNotificationSchema = z.strictObject({
  email: z
    .strictObject({
      enabled: z.boolean().optional(),
      recipients: z.array(z.email()).max(MAX_MONITOR_RECIPIENTS).optional(),
      includeDiffs: z.boolean().optional(),
    })
    .optional(),
});

const monitorShape = {
  name: z.string().min(1).max(MAX_MONITOR_NAME),
  schedule: monitorScheduleSchema,
  targets: z.array(monitorTargetSchema).min(1).max(MAX_MONITOR_TARGETS),
  webhook: monitorWebhookSchema.optional(),
  notification: monitorNotificationSchema.optional(),
  retentionDays: z.number().int().min(1).max(MAX_MONITOR_RETENTION_DAYS).optional(),
  goal: z.string().max(MAX_MONITOR_GOAL).nullish(),
  judgeEnabled: z.boolean().optional(),
};

export const createMonitorRequestSchema = body(monitorShape);

export const monitorStatusSchema = z.enum(['active', 'paused']);

export const updateMonitorRequestSchema = body({
  ...Object.fromEntries(Object.entries(monitorShape).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof typeof monitorShape]: z.ZodOptional<(typeof monitorShape)[K]>;
  },
  status: monitorStatusSchema.optional(),
}).refine((v) => Object.keys(v).some((k) => k !== 'origin' && k !== 'integration'), { error: 'must change at least one field' });

export const monitorCheckStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'partial', 'skipped_overlap', 'skipped_no_credits']);
export const monitorPageStatusSchema = z.enum(['same', 'new', 'changed', 'removed', 'error']);

/** Query of GET /v2/monitor. */
export const listMonitorsQuerySchema = z.strictObject({
  limit: queryInt(1, MAX_MONITOR_LIST_LIMIT).optional(),
  offset: queryInt(0).optional(),
});

/** Query of GET /v2/monitor/{id}/checks. */
export const listMonitorChecksQuerySchema = z.strictObject({
  limit: queryInt(1, MAX_MONITOR_LIST_LIMIT).optional(),
  offset: queryInt(0).optional(),
  status: monitorCheckStatusSchema.optional(),
});

/** Query of GET /v2/monitor/{id}/checks/{checkId} (its pages). */
export const monitorCheckQuerySchema = z.strictObject({
  limit: queryInt(1, MAX_MONITOR_LIST_LIMIT).optional(),
  skip: queryInt(0).optional(),
  status: monitorPageStatusSchema.optional(),
});

/** Monitor and check ids are UUIDs. */
export const monitorIdSchema = uuid;
export const monitorNameSchema = nonEmpty;

export type MonitorWebhookEvent = z.infer<typeof monitorWebhookEventSchema>;
export type MonitorTarget = z.input<typeof monitorTargetSchema>;
export type MonitorTargetParsed = z.output<typeof monitorTargetSchema>;
export type CreateMonitorRequest = z.input<typeof createMonitorRequestSchema>;
export type CreateMonitorRequestParsed = z.output<typeof createMonitorRequestSchema>;
export type UpdateMonitorRequest = z.input<typeof updateMonitorRequestSchema>;
export type UpdateMonitorRequestParsed = z.output<typeof updateMonitorRequestSchema>;
export type MonitorCheckStatus = z.infer<typeof monitorCheckStatusSchema>;
export type MonitorPageStatus = z.infer<typeof monitorPageStatusSchema>;
export type ListMonitorsQuery = z.input<typeof listMonitorsQuerySchema>;
export type ListMonitorChecksQuery = z.input<typeof listMonitorChecksQuerySchema>;
export type MonitorCheckQuery = z.input<typeof monitorCheckQuerySchema>;
