// What the monitor module keeps: monitors, their checks, each check's pages, and per target
// the last good copy of every page (the baseline the next check compares with).
import type { MonitorCheckStatusValue, MonitorJudgment, MonitorSummary, MonitorTargetParsed } from 'webdata-contract';
import type { TeamConfig } from '../core/teams.js';
import type { WebhookSpec } from '../core/webhooks.js';

export type MonitorTargetRecord = MonitorTargetParsed & { id: string };

export interface MonitorRecord {
  id: string;
  team: TeamConfig;
  /** The key that created it: its checks are billed to it. */
  apiKey: string;
  name: string;
  status: 'active' | 'paused';
  cron: string;
  timezone: string;
  targets: MonitorTargetRecord[];
  webhook?: WebhookSpec;
  notification: unknown;
  retentionDays: number;
  goal: string | null;
  judgeEnabled: boolean;
  nextRunAt: number | null;
  lastRunAt: number | null;
  currentCheckId: string | null;
  lastCheckSummary: MonitorSummary | null;
  createdAt: number;
  updatedAt: number;
  /** targetId → url key → the page as last seen without error. */
  baseline: Map<string, Map<string, BaselinePage>>;
}

export interface BaselinePage {
  url: string;
  hash: string;
  markdown: string;
  scrapeId: string;
}

export type PageStatus = 'same' | 'new' | 'changed' | 'removed' | 'error';

export interface CheckPageRecord {
  id: string;
  targetId: string;
  url: string;
  status: PageStatus;
  previousScrapeId: string | null;
  currentScrapeId: string | null;
  statusCode: number | null;
  error: string | null;
  diffText: string | null;
  judgment?: MonitorJudgment;
  createdAt: number;
}

export interface CheckRecord {
  id: string;
  monitorId: string;
  teamId: string;
  status: MonitorCheckStatusValue;
  trigger: 'scheduled' | 'manual';
  scheduledFor: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  estimatedCredits: number;
  actualCredits: number | null;
  pages: CheckPageRecord[];
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export function summarize(pages: ReadonlyArray<Pick<CheckPageRecord, 'status'>>): MonitorSummary {
  const count = (s: PageStatus) => pages.filter((p) => p.status === s).length;
  return { totalPages: pages.length, same: count('same'), changed: count('changed'), new: count('new'), removed: count('removed'), error: count('error') };
}
