// Figures measured by the chaos scenarios, merged into .data/chaos/report-<profile>.json;
// scripts/run-chaos.mjs prints them as the table of docs/reliability.md.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { History } from '@temporalio/common/lib/proto-utils.js';

export interface ScenarioFigures {
  scenario: string;
  injected: string;
  outcome: string;
  figures: Record<string, string | number>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function reportPath(profile: string): string {
  return join(ROOT, '.data', 'chaos', `report-${profile}.json`);
}

export function recordScenario(profile: string, key: string, figures: ScenarioFigures): void {
  const path = reportPath(profile);
  mkdirSync(dirname(path), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    // First scenario of the run.
  }
  all[key] = { ...figures, measuredAt: new Date().toISOString() };
  writeFileSync(path, `${JSON.stringify(all, null, 2)}\n`);
}

export interface HistoryFigures {
  events: number;
  /** Activity attempts after the first (ActivityTaskStarted with attempt > 1). */
  retries: number;
  timeouts: number;
  failures: number;
  /** Retried attempts per activity type. */
  retriedByType: Record<string, number>;
}

export function historyFigures(history: History): HistoryFigures {
  const events = history.events ?? [];
  const typeBySchedule = new Map<string, string>();
  const out: HistoryFigures = { events: events.length, retries: 0, timeouts: 0, failures: 0, retriedByType: {} };
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) typeBySchedule.set(String(e.eventId), scheduled.activityType?.name ?? '?');
    const started = e.activityTaskStartedEventAttributes;
    if (started && (started.attempt ?? 1) > 1) {
      const n = (started.attempt ?? 1) - 1;
      out.retries += n;
      const type = typeBySchedule.get(String(started.scheduledEventId)) ?? '?';
      out.retriedByType[type] = (out.retriedByType[type] ?? 0) + n;
    }
    if (e.activityTaskTimedOutEventAttributes) out.timeouts += 1;
    if (e.activityTaskFailedEventAttributes) out.failures += 1;
  }
  return out;
}

/** Milliseconds of an event's timestamp. */
export function eventMs(e: NonNullable<History['events']>[number]): number {
  const t = e.eventTime;
  if (!t) return 0;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/** Identity of the worker that produced an event, when the event names one. */
export function eventIdentity(e: NonNullable<History['events']>[number]): string | undefined {
  return e.workflowTaskCompletedEventAttributes?.identity
    ?? e.workflowTaskStartedEventAttributes?.identity
    ?? e.activityTaskStartedEventAttributes?.identity
    ?? e.activityTaskCompletedEventAttributes?.identity
    ?? e.activityTaskFailedEventAttributes?.identity
    ?? undefined;
}

export function stats(values: number[]): { min: number; median: number; max: number } {
  if (values.length === 0) return { min: 0, median: 0, max: 0 };
  const s = [...values].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor((s.length - 1) / 2)], max: s[s.length - 1] };
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
