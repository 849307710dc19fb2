// A tenant's limits, held by its ledger workflow next to its monthly budget (tenant-ledger-rules.ts):
// runs in flight (slots a run takes before it first spends and gives back when it ends) and credits
// per hour (a sliding one-hour window of settled credits plus what is held). Pure rules over the
// ledger's state, unit-testable outside Temporal.
import type { LedgerState } from './tenant-ledger-rules.js';

export const HOUR_MS = 60 * 60 * 1000;
/** Settled credits are kept per minute (at most 60 entries): an entry counts until its minute's end plus an hour. */
export const MINUTE_MS = 60 * 1000;
/** A run in line that has not asked again for this long is dropped (waiting runs ask every minute at least). */
export const LINE_TTL_MS = 5 * 60 * 1000;

/** Limits of a tenant; null: none. */
export interface TenantLimits {
  maxRunsInFlight: number | null;
  creditsPerHour: number | null;
}

/** A tenant's own setting per limit: absent follows the default for all tenants, null is "no limit". */
export type LimitOverride = Partial<TenantLimits>;

export const NO_LIMITS: TenantLimits = { maxRunsInFlight: null, creditsPerHour: null };

/** What `webdata tenants` shows of a tenant's limits, and what a run reads of them. */
export interface TenantLimitsView extends TenantLimits {
  /** The tenant's own settings (the rest follows `defaults`). */
  override: LimitOverride;
  defaults: TenantLimits;
  runsInFlight: number;
  /** Runs waiting for a slot. */
  waiting: number;
  /** Credits settled within the last hour plus those held now. */
  creditsThisHour: number;
  /** Credits a new reservation may take within the hour (not counting `except`'s hold); null: no hourly limit. */
  hourLeft: number | null;
  /** When the oldest credits of the window leave it (ms since the epoch); absent when nothing will. */
  freesAt?: number;
}

export interface SlotAnswer {
  granted: boolean;
  runsInFlight: number;
  limit: number | null;
  /** Place in line (1 = next) when not granted. */
  position?: number;
  /** Runs holding slots (oldest first) and, ahead of this run in line, waiting: the asking activity checks they still run. */
  holders?: string[];
}

/** The limits in force: the tenant's own setting where it has one, else the default. */
export function effectiveLimits(state: LedgerState): TenantLimits {
  const own = state.limits ?? {};
  const defaults = state.defaults ?? NO_LIMITS;
  return {
    maxRunsInFlight: own.maxRunsInFlight !== undefined ? own.maxRunsInFlight : defaults.maxRunsInFlight,
    creditsPerHour: own.creditsPerHour !== undefined ? own.creditsPerHour : defaults.creditsPerHour,
  };
}

/** Drops window entries older than an hour and runs in line that stopped asking. */
export function rollLimits(state: LedgerState, now: number): void {
  if (state.hour) state.hour = state.hour.filter(([end]) => end + HOUR_MS > now);
  if (state.line) state.line = state.line.filter((w) => now - w.at <= LINE_TTL_MS);
}

/** Adds settled credits to the hour window (in the entry of the current minute). */
export function recordHour(state: LedgerState, credits: number, now: number): void {
  if (credits <= 0) return;
  const end = Math.ceil((now + 1) / MINUTE_MS) * MINUTE_MS;
  const hour = (state.hour ??= []);
  const last = hour[hour.length - 1];
  if (last && last[0] === end) last[1] += credits;
  else hour.push([end, credits]);
}

function heldCredits(state: LedgerState, except?: string): number {
  return Object.entries(state.holds).reduce((n, [key, h]) => (key === except ? n : n + h.credits), 0);
}

function settledThisHour(state: LedgerState, now: number): number {
  return (state.hour ?? []).reduce((n, [end, c]) => (end + HOUR_MS > now ? n + c : n), 0);
}

/** Credits left within the hour for a new hold (null: no hourly limit). Call after roll(). */
export function hourLeft(state: LedgerState, now: number, except?: string): number | null {
  const perHour = effectiveLimits(state).creditsPerHour;
  if (perHour === null) return null;
  return Math.max(0, perHour - settledThisHour(state, now) - heldCredits(state, except));
}

/**
 * The earliest time at which `need` credits fit the hour as the window stands (settled entries
 * leave it, holds stay until settled); undefined without an hourly limit, or when the holds alone
 * leave no room (then it frees when they settle).
 */
export function hourFreesAt(state: LedgerState, now: number, need: number, except?: string): number | undefined {
  const perHour = effectiveLimits(state).creditsPerHour;
  if (perHour === null) return undefined;
  const held = heldCredits(state, except);
  if (held + need > perHour) return undefined;
  let settled = settledThisHour(state, now);
  if (held + settled + need <= perHour) return now;
  for (const [end, credits] of state.hour ?? []) {
    if (end + HOUR_MS <= now) continue;
    settled -= credits;
    if (held + settled + need <= perHour) return end + HOUR_MS;
  }
  return undefined;
}

export function limitsView(state: LedgerState, now: number, except?: string): TenantLimitsView {
  rollLimits(state, now);
  const limits = effectiveLimits(state);
  const left = hourLeft(state, now, except);
  const freesAt = limits.creditsPerHour === null ? undefined : (state.hour ?? []).find(([end]) => end + HOUR_MS > now)?.[0];
  return {
    ...limits,
    override: { ...(state.limits ?? {}) },
    defaults: state.defaults ?? NO_LIMITS,
    runsInFlight: Object.keys(state.slots ?? {}).length,
    waiting: (state.line ?? []).length,
    creditsThisHour: settledThisHour(state, now) + heldCredits(state),
    hourLeft: left,
    ...(freesAt !== undefined ? { freesAt: freesAt + HOUR_MS } : {}),
  };
}

/**
 * A run asks for a slot: granted when one is free for it (runs in line before it go first), else
 * it keeps (or takes) its place in line. Asking again while holding one answers granted.
 */
export function acquireSlot(state: LedgerState, run: string, now: number): SlotAnswer {
  rollLimits(state, now);
  const slots = (state.slots ??= {});
  const line = (state.line ??= []);
  const limit = effectiveLimits(state).maxRunsInFlight;
  const inFlight = () => Object.keys(slots).length;
  if (slots[run] !== undefined) return { granted: true, runsInFlight: inFlight(), limit };
  let place = line.findIndex((w) => w.id === run);
  if (limit === null || inFlight() + Math.max(0, place) < limit) {
    if (place >= 0) line.splice(place, 1);
    slots[run] = now;
    return { granted: true, runsInFlight: inFlight(), limit };
  }
  if (place < 0) {
    line.push({ id: run, at: now });
    place = line.length - 1;
  } else {
    line[place] = { id: run, at: now };
  }
  return { granted: false, runsInFlight: inFlight(), limit, position: place + 1, holders: [...Object.keys(slots), ...line.slice(0, place).map((w) => w.id)] };
}

/** A run ended (or was found closed): its slot and its place in line are given back. */
export function releaseSlot(state: LedgerState, run: string): boolean {
  let changed = false;
  if (state.slots?.[run] !== undefined) {
    delete state.slots[run];
    changed = true;
  }
  const at = state.line?.findIndex((w) => w.id === run) ?? -1;
  if (at >= 0) {
    state.line?.splice(at, 1);
    changed = true;
  }
  return changed;
}

/** Runs in line that a slot is free for now: the ledger tells them to ask again. */
export function runsToWake(state: LedgerState): string[] {
  const line = state.line ?? [];
  const limit = effectiveLimits(state).maxRunsInFlight;
  const free = limit === null ? line.length : Math.max(0, limit - Object.keys(state.slots ?? {}).length);
  return line.slice(0, free).map((w) => w.id);
}

/** Checks a limits setting: each given field a whole number (at least 1 for runs) or null. */
export function limitsProblem(arg: LimitOverride | undefined): string | undefined {
  if (arg === null || typeof arg !== 'object') return 'limits: must be an object';
  for (const key of Object.keys(arg)) if (key !== 'maxRunsInFlight' && key !== 'creditsPerHour') return `${key}: not a limit (maxRunsInFlight, creditsPerHour)`;
  const runs = arg.maxRunsInFlight;
  if (runs !== undefined && runs !== null && (!Number.isInteger(runs) || runs < 1 || runs > 100_000)) return 'maxRunsInFlight: must be a whole number from 1 to 100000, or null (no limit)';
  const perHour = arg.creditsPerHour;
  if (perHour !== undefined && perHour !== null && (!Number.isInteger(perHour) || perHour < 0 || perHour > 1_000_000_000)) return 'creditsPerHour: must be a whole number, 0 or more, or null (no limit)';
  return undefined;
}
