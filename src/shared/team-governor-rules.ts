// The fleet governor's rules (held by workflows/team-governor.ts): one API team's concurrency
// shared fairly between the tenants whose runs start jobs on it. Pure functions over the state,
// unit-testable outside Temporal. A lease is a share of the team's concurrency held by one job
// (its maxConcurrency); it is renewed while the job runs and expires when its holder is gone.

/** A lease not renewed for this long is reclaimed (its run's worker and retries are gone). */
export const DEFAULT_LEASE_TTL_MS = 60_000;
/**
 * governor.overcommit: measured on bench/tenants.ts (docs/tenants.md), twice the team gave the
 * small tenants' runs and the team's pages/s both more than the team's own concurrency did.
 */
export const DEFAULT_OVERCOMMIT = 2;
export const MAX_OVERCOMMIT = 4;
/** A waiter that stopped asking for this long is dropped (its run was cancelled or died). */
export const WAITER_TTL_MS = 60_000;
/**
 * ...unless it asked by signal (`notify`): the governor tells its run of the grant, the run asks
 * again only every few minutes, and a run that is gone shows when the notice fails (its lease is
 * given back at once), so its place in line is kept this long.
 */
export const NOTIFIED_WAITER_TTL_MS = 10 * 60_000;

export interface Lease {
  tenant: string;
  share: number;
  expiresAt: number;
  ttlMs: number;
  /** The run told of this grant: when that notice fails, the run is gone and the lease comes back. */
  notify?: string;
}

export interface Waiter {
  tenant: string;
  want: number;
  ttlMs: number;
  /** First asked: the order among a tenant's own waiters. */
  since: number;
  /** Last asked: a waiter not seen for WAITER_TTL_MS is dropped. */
  seenAt: number;
  /** The workflow id of the run to signal when granted (it asked by signal). */
  notify?: string;
}

export interface GovernorState {
  /** The team's id: a hash of its API key (never the key). */
  team: string;
  concurrency: number;
  /**
   * Shares may add up to this many times `concurrency` (no one job above it). Absent in states
   * carried from before it existed: 1.
   */
  overcommit?: number;
  /** Lease key (`<workflowId>/<stage>/<n>`) → lease. */
  leases: Record<string, Lease>;
  waiting: Record<string, Waiter>;
  /** Tenant → when it first became active (held or waited); forgotten when it has neither. */
  arrivals: Record<string, number>;
  /** No grant before this time (a 429's Retry-After applies to the whole team). */
  pausedUntil: number;
  /** Leases reclaimed at expiry, for the query (and tests). */
  expired: number;
  /** Keeps headroom() for arriving tenants; false on governors replaying a history from before it. */
  newcomerHeadroom?: boolean;
}

export interface AcquireRequest {
  key: string;
  tenant: string;
  /** Slots the job would use at most (its maxConcurrency). */
  want: number;
  /** The team's concurrency as the caller knows it (queue-status or configuration). */
  concurrency: number;
  /** The caller's governor.overcommit; absent (older callers): 1. */
  overcommit?: number;
  ttlMs?: number;
  /** The asking run's workflow id (an ask by signal): signalled (shareGranted) when the share is granted. */
  notify?: string;
}

export type Grant = { granted: true; key: string; share: number; expiresAt: number } | { granted: false; position: number; pausedUntil: number };

const KEY = /^[A-Za-z0-9._/:#-]{1,300}$/;
const TENANT = /^[A-Za-z0-9._-]{1,64}$/;

export function checkKey(name: string, key: unknown): void {
  if (typeof key !== 'string' || !KEY.test(key)) throw new Error(`${name}: must be 1-300 letters, digits or ._/:#-`);
}

export function checkCount(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`${name}: must be a whole number, 1 or more`);
}

/** Throws one line naming the field and the rule: the governor's validator, and the asking activity's check before it signals. */
export function checkAcquireRequest(req: AcquireRequest | undefined): void {
  checkKey('key', req?.key);
  if (typeof req?.tenant !== 'string' || !TENANT.test(req.tenant)) throw new Error('tenant: must be 1-64 letters, digits, dot, dash or underscore');
  checkCount('want', req.want);
  checkCount('concurrency', req.concurrency);
  if (req.overcommit !== undefined && !(typeof req.overcommit === 'number' && req.overcommit >= 1 && req.overcommit <= MAX_OVERCOMMIT)) {
    throw new Error(`overcommit: must be a number from 1 to ${MAX_OVERCOMMIT}`);
  }
  if (req.ttlMs !== undefined) checkCount('ttlMs', req.ttlMs);
  if (req.notify !== undefined) checkKey('notify', req.notify);
}

export interface GovernorStatus {
  team: string;
  concurrency: number;
  /** What the shares may add up to: concurrency × overcommit. */
  capacity: number;
  /** Of the capacity, what one tenant may not hold (kept for a tenant that arrives). */
  headroom: number;
  inUse: number;
  pausedUntil: number;
  expired: number;
  tenants: Array<{ tenant: string; held: number; leases: number; waiting: number; fairShare: number }>;
}

export function newGovernor(team: string, concurrency: number): GovernorState {
  return { team, concurrency: Math.max(1, concurrency), leases: {}, waiting: {}, arrivals: {}, pausedUntil: 0, expired: 0, newcomerHeadroom: true };
}

function held(state: GovernorState, tenant: string): number {
  return Object.values(state.leases).reduce((n, l) => (l.tenant === tenant ? n + l.share : n), 0);
}

/**
 * What the leases may add up to. Above the team's concurrency, jobs overlap their bookkeeping
 * (start, the follower's last reads, release) with other jobs' pages while the service's own
 * team limit keeps pages at once at the team's concurrency.
 */
export function capacity(state: GovernorState): number {
  return Math.max(state.concurrency, Math.floor(state.concurrency * (state.overcommit ?? 1)));
}

/**
 * Slots that no one tenant may fill when the capacity is over-committed: a tenant arriving while
 * another holds everything starts at once instead of waiting for one of its jobs to end (jobs
 * cannot shrink). Never more than the over-commit, so a tenant alone still holds at least the
 * team's concurrency and keeps the service busy; 0 without over-commit.
 */
export function headroom(state: GovernorState): number {
  if (!state.newcomerHeadroom) return 0;
  return Math.min(capacity(state) - state.concurrency, Math.ceil(state.concurrency / 4));
}

/** The most one tenant may hold. */
function tenantCap(state: GovernorState): number {
  return capacity(state) - headroom(state);
}

export function inUse(state: GovernorState): number {
  return Object.values(state.leases).reduce((n, l) => n + l.share, 0);
}

/** Active tenants (holding or waiting), first arrived first. */
function activeTenants(state: GovernorState): string[] {
  const active = new Set([...Object.values(state.leases), ...Object.values(state.waiting)].map((x) => x.tenant));
  return [...active].sort((a, b) => (state.arrivals[a] ?? 0) - (state.arrivals[b] ?? 0) || a.localeCompare(b));
}

/**
 * Each active tenant's fair share: the governor's capacity split equally, the remainder (and, with
 * more tenants than slots, the single slots) to the earliest arrived.
 */
export function fairShares(state: GovernorState): Map<string, number> {
  const tenants = activeTenants(state);
  const base = Math.floor(capacity(state) / Math.max(1, tenants.length));
  const extra = capacity(state) % Math.max(1, tenants.length);
  return new Map(tenants.map((t, i) => [t, Math.min(tenantCap(state), base + (i < extra ? 1 : 0))]));
}

/** Drops expired leases and waiters that stopped asking; forgets tenants with neither. */
export function expire(state: GovernorState, now: number): void {
  for (const [key, lease] of Object.entries(state.leases)) {
    if (lease.expiresAt <= now) {
      delete state.leases[key];
      state.expired++;
    }
  }
  for (const [key, w] of Object.entries(state.waiting)) {
    if (now - w.seenAt > waiterTtl(w)) delete state.waiting[key];
  }
  const active = new Set(activeTenants(state));
  for (const tenant of Object.keys(state.arrivals)) if (!active.has(tenant)) delete state.arrivals[tenant];
}

function waiterTtl(w: Waiter): number {
  return Math.max(w.notify !== undefined ? NOTIFIED_WAITER_TTL_MS : WAITER_TTL_MS, w.ttlMs);
}

/** Registers (or refreshes) a request; an already granted key keeps its lease, renewed. */
export function request(state: GovernorState, req: AcquireRequest, now: number): void {
  state.concurrency = Math.max(1, req.concurrency);
  state.overcommit = req.overcommit ?? 1;
  const ttlMs = req.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const lease = state.leases[req.key];
  if (lease) {
    lease.expiresAt = now + lease.ttlMs;
    return;
  }
  state.arrivals[req.tenant] ??= now;
  const notify = req.notify !== undefined ? { notify: req.notify } : {};
  const waiter = state.waiting[req.key];
  if (waiter) Object.assign(waiter, { seenAt: now }, notify);
  else state.waiting[req.key] = { tenant: req.tenant, want: Math.max(1, req.want), ttlMs, since: now, seenAt: now, ...notify };
}

/**
 * Grants what fits, fairly: tenants holding least first, each up to its fair share, and beyond it
 * what no other waiting tenant is still owed (no slot idles while a job wants it). A tenant over
 * its share keeps its leases until they end: jobs cannot shrink, so large work comes in chunks.
 */
export function grantAll(state: GovernorState, now: number): string[] {
  expire(state, now);
  if (now < state.pausedUntil) return [];
  const fair = fairShares(state);
  let free = capacity(state) - inUse(state);
  const granted: string[] = [];
  const owed = (tenant: string) => Math.max(0, (fair.get(tenant) ?? 0) - held(state, tenant));
  const order = Object.entries(state.waiting).sort(([ka, a], [kb, b]) =>
    held(state, a.tenant) - held(state, b.tenant) || (state.arrivals[a.tenant] ?? 0) - (state.arrivals[b.tenant] ?? 0) || a.since - b.since || ka.localeCompare(kb));
  for (const [key, w] of order) {
    if (free <= 0) break;
    const others = new Set(Object.values(state.waiting).filter((x) => x.tenant !== w.tenant).map((x) => x.tenant));
    const owedOthers = [...others].reduce((n, t) => n + owed(t), 0);
    // No job above the team's concurrency: the service would not run more of its pages at once.
    const share = Math.min(w.want, state.concurrency, free, tenantCap(state) - held(state, w.tenant), Math.max(owed(w.tenant), free - owedOthers));
    if (share < 1) continue;
    state.leases[key] = { tenant: w.tenant, share, expiresAt: now + w.ttlMs, ttlMs: w.ttlMs, ...(w.notify !== undefined ? { notify: w.notify } : {}) };
    delete state.waiting[key];
    free -= share;
    granted.push(key);
  }
  return granted;
}

/** The answer to a request now: its lease, or its place among the waiters. */
export function answer(state: GovernorState, key: string): Grant {
  const lease = state.leases[key];
  if (lease) return { granted: true, key, share: lease.share, expiresAt: lease.expiresAt };
  const keys = Object.keys(state.waiting).sort((a, b) => state.waiting[a].since - state.waiting[b].since || a.localeCompare(b));
  return { granted: false, position: keys.indexOf(key) + 1, pausedUntil: state.pausedUntil };
}

/** Extends a lease; a lease reclaimed meanwhile comes back (its job still runs on the service). */
export function renew(state: GovernorState, key: string, tenant: string, share: number, now: number): boolean {
  const lease = state.leases[key];
  if (lease) {
    lease.expiresAt = now + lease.ttlMs;
    return true;
  }
  state.arrivals[tenant] ??= now;
  state.leases[key] = { tenant, share, expiresAt: now + DEFAULT_LEASE_TTL_MS, ttlMs: DEFAULT_LEASE_TTL_MS };
  delete state.waiting[key];
  return false;
}

export function release(state: GovernorState, key: string): void {
  delete state.leases[key];
  delete state.waiting[key];
}

/** A 429's Retry-After: no start anywhere in the team before `until`. */
export function pause(state: GovernorState, until: number): void {
  state.pausedUntil = Math.max(state.pausedUntil, until);
}

/** When the governor must look again without a message: next expiry, or the pause's end. */
export function nextWake(state: GovernorState, now: number): number | undefined {
  const times = [
    ...Object.values(state.leases).map((l) => l.expiresAt),
    ...Object.values(state.waiting).map((w) => w.seenAt + waiterTtl(w) + 1),
    ...(state.pausedUntil > now ? [state.pausedUntil] : []),
  ];
  return times.length ? Math.min(...times) : undefined;
}

export function status(state: GovernorState): GovernorStatus {
  const fair = fairShares(state);
  return {
    team: state.team,
    concurrency: state.concurrency,
    capacity: capacity(state),
    headroom: headroom(state),
    inUse: inUse(state),
    pausedUntil: state.pausedUntil,
    expired: state.expired,
    tenants: activeTenants(state).map((tenant) => ({
      tenant,
      held: held(state, tenant),
      leases: Object.values(state.leases).filter((l) => l.tenant === tenant).length,
      waiting: Object.values(state.waiting).filter((w) => w.tenant === tenant).length,
      fairShare: fair.get(tenant) ?? 0,
    })),
  };
}
