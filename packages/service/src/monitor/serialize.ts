// Monitors, checks and check pages as the wire shows them (webdata-contract Monitor, MonitorCheck, MonitorCheckPage).
import type { Monitor, MonitorCheck, MonitorCheckPage } from 'webdata-contract';
import { runsPerMonth } from './schedule.js';
import { estimatePages } from './runner.js';
import { summarize, type CheckPageRecord, type CheckRecord, type MonitorRecord } from './types.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function serializeMonitor(m: MonitorRecord, now: number): Monitor {
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    schedule: { cron: m.cron, timezone: m.timezone },
    nextRunAt: m.status === 'active' ? iso(m.nextRunAt) : null,
    lastRunAt: iso(m.lastRunAt),
    currentCheckId: m.currentCheckId,
    targets: m.targets,
    webhook: m.webhook ?? null,
    notification: m.notification,
    retentionDays: m.retentionDays,
    estimatedCreditsPerMonth: runsPerMonth(m.cron, m.timezone, now) * estimatePages(m.targets),
    lastCheckSummary: m.lastCheckSummary,
    goal: m.goal,
    judgeEnabled: m.judgeEnabled,
    createdAt: new Date(m.createdAt).toISOString(),
    updatedAt: new Date(m.updatedAt).toISOString(),
  };
}

export function serializeCheck(c: CheckRecord): MonitorCheck {
  return {
    id: c.id,
    monitorId: c.monitorId,
    status: c.status,
    trigger: c.trigger,
    scheduledFor: iso(c.scheduledFor),
    startedAt: iso(c.startedAt),
    finishedAt: iso(c.finishedAt),
    estimatedCredits: c.estimatedCredits,
    actualCredits: c.actualCredits,
    summary: summarize(c.pages),
    error: c.error,
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}

/** A check page; `judgment` only when a model judged it (never made up without one). */
export function serializeCheckPage(p: CheckPageRecord): MonitorCheckPage {
  return {
    id: p.id,
    targetId: p.targetId,
    url: p.url,
    status: p.status,
    previousScrapeId: p.previousScrapeId,
    currentScrapeId: p.currentScrapeId,
    statusCode: p.statusCode,
    error: p.error,
    diff: p.diffText === null ? null : { text: p.diffText },
    ...(p.judgment ? { judgment: p.judgment } : {}),
    createdAt: new Date(p.createdAt).toISOString(),
  };
}
