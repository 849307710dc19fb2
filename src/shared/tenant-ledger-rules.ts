// A tenant's monthly credit budget across its runs and schedules: pure rules over the ledger's
// state (held by the tenant's ledger workflow, tenant-ledger.ts), unit-testable outside Temporal.
// A run reserves a stage's worst case before it spends (a hold), and settles the stage's actual
// credits when it ends; a hold a run never settles (its worker and retries all gone) expires.

/** A hold not settled within this long is dropped (a run that died mid-stage). */
export const HOLD_TTL_MS = 6 * 60 * 60 * 1000;
/** Past months kept for `webdata tenants`. */
export const MONTHS_KEPT = 12;

import { effectiveLimits, hourFreesAt, hourLeft, recordHour, type LimitOverride, type TenantLimits, type TenantLimitsView } from './tenant-limit-rules.js';

export interface LedgerState {
  tenant: string;
  /** Credits the tenant may spend per calendar month (UTC); null: no budget, usage only. */
  budget: number | null;
  /** The month `used`, `holds` and `settled` are of: `YYYY-MM`. */
  month: string;
  used: number;
  /** Reserved, not yet settled: key (`<workflowId>/<stage>`) → credits and when. */
  holds: Record<string, { credits: number; at: number }>;
  /** Keys settled this month: a settle that is retried counts once. */
  settled: string[];
  /** Earlier months, newest last. */
  history: Array<{ month: string; used: number }>;
  /** Per-tenant limits (tenant-limit-rules.ts); absent in ledgers from before them. */
  limits?: LimitOverride;
  /** The defaults for all tenants as last passed by a run's activity or `webdata tenants --default`. */
  defaults?: TenantLimits;
  /** Credits settled per minute within the last hour: [minute's end ms, credits]. */
  hour?: Array<[number, number]>;
  /** Runs holding a slot: workflow id → when granted. */
  slots?: Record<string, number>;
  /** Runs waiting for a slot, first come first; `at`: when each last asked. */
  line?: Array<{ id: string; at: number }>;
}

export interface TenantUsage {
  tenant: string;
  month: string;
  budget: number | null;
  used: number;
  held: number;
  /** Credits a new reservation may take; null without a budget (payloads are JSON: no Infinity). */
  left: number | null;
  /** Runs in flight and credits per hour (absent from ledgers' answers from before limits). */
  limits?: TenantLimitsView;
}

export interface Reservation {
  granted: boolean;
  /** What is left after the hold (granted) or what was left (refused); null: no budget. */
  left: number | null;
  /** Refused for the tenant's credits per hour: when the window has room for the hold (absent: when holds settle). */
  hourBound?: { perHour: number; freesAt?: number };
}

export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export function newLedger(tenant: string, now: number): LedgerState {
  return { tenant, budget: null, month: monthOf(now), used: 0, holds: {}, settled: [], history: [] };
}

/** Starts a new month when the calendar moved on, and drops expired holds. */
export function roll(state: LedgerState, now: number): void {
  const month = monthOf(now);
  if (month !== state.month) {
    state.history.push({ month: state.month, used: state.used });
    state.history = state.history.slice(-MONTHS_KEPT);
    state.month = month;
    state.used = 0;
    state.settled = [];
    state.holds = {};
  }
  for (const [key, hold] of Object.entries(state.holds)) {
    if (now - hold.at > HOLD_TTL_MS) delete state.holds[key];
  }
}

/** Usage now; rolls `state` forward (a query passes a copy: queries change nothing). */
export function usage(state: LedgerState, now: number, except?: string): TenantUsage {
  roll(state, now);
  const held = Object.entries(state.holds).reduce((n, [key, h]) => (key === except ? n : n + h.credits), 0);
  const left = state.budget === null ? null : Math.max(0, state.budget - state.used - held);
  return { tenant: state.tenant, month: state.month, budget: state.budget, used: state.used, held, left };
}

/** Holds `credits` under `key` when they fit what is left (a repeated key replaces its own hold). */
export function reserve(state: LedgerState, key: string, credits: number, now: number): Reservation {
  const monthly = usage(state, now, key).left;
  const hourly = hourLeft(state, now, key);
  const left = monthly === null ? hourly : hourly === null ? monthly : Math.min(monthly, hourly);
  if (left !== null && credits > left) {
    if (hourly === null || (monthly !== null && monthly <= hourly)) return { granted: false, left };
    const freesAt = hourFreesAt(state, now, credits, key);
    return { granted: false, left, hourBound: { perHour: effectiveLimits(state).creditsPerHour ?? 0, ...(freesAt !== undefined ? { freesAt } : {}) } };
  }
  state.holds[key] = { credits, at: now };
  return { granted: true, left: left === null ? null : left - credits };
}

/** Records what `key` actually spent and releases its hold; a key settles once a month. */
export function settle(state: LedgerState, key: string, credits: number, now: number): TenantUsage {
  roll(state, now);
  delete state.holds[key];
  if (!state.settled.includes(key)) {
    state.settled.push(key);
    state.used += Math.max(0, credits);
    recordHour(state, credits, now);
  }
  return usage(state, now);
}
