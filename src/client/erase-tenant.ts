// eraseTenant: removes a tenant's data as one (its schedules, runs, store runs, change series,
// credit ledger and workflow histories) and leaves a record that it happened, without the data.
//
// The order keeps other tenants whole and lets an interrupted erasure be run again:
//   schedules first (no new run starts), then the running runs cancelled (terminated when they
//   do not close in time), then the store runs and series (found through the runs' inputs, so
//   before the runs go), the ledger (after the runs: a cancelled run settles its credits there),
//   and the workflow executions last. Visibility is eventually consistent: the erasure waits
//   until a listing finds none of the tenant, and a run that appears meanwhile (a schedule's,
//   started just before the schedule went) is erased in another round.
import type { Client } from '@temporalio/client';
import type { DocumentStore } from 'webdata-storage';
import { seriesStoreRun } from '../activities/series-index.js';
import { LEDGER_WORKFLOW_TYPE } from '../shared/tenant-ledger-messages.js';
import { tenantSchema } from '../shared/tenant.js';
import { listErasures, recordUrl, writeErasureRecord, type ErasureCounts } from './erasure-record.js';
import { eachLimited } from './each-limited.js';
import { PARALLEL, tenantExecutions, tenantInventory, type KeptStoreRun, type TenantExecution, type TenantInventory, type TenantSeries, type TenantStoreRun } from './tenant-inventory.js';
import { tenantQuery } from './tenant-runs.js';

export interface EraseTenantOptions {
  /** Find and count only; change nothing. */
  dryRun?: boolean;
  /** Why (and for whom) the erasure was asked; kept in the erasure record. */
  reason?: string;
  /** How long cancelled runs get to close before they are terminated (default 60 s). */
  cancelWaitMs?: number;
  /** Store runs whose id starts with this are the tenant's too (see InventoryOptions); 3-128 run id characters. */
  storeRunPrefix?: string;
  /** How long to wait for visibility to list none of the tenant after the deletion (default 60 s). */
  visibilityWaitMs?: number;
}

export interface ErasureReport {
  tenant: string;
  dryRun: boolean;
  /** False: nothing of the tenant was found (already erased, or never there); nothing written. */
  found: boolean;
  counts: ErasureCounts;
  /** Series that also hold other tenants' runs: kept whole (the store cannot remove single entries). */
  keptSeries: TenantSeries[];
  /** Store runs of the tenant kept because another tenant's data needs them (see KeptStoreRun). */
  keptStoreRuns: KeptStoreRun[];
  /** Executions visibility still listed when the erasure ended (deleted ones it lags behind, or runs started meanwhile): run it again. */
  stillListed: number;
  /** The erasure record's url (`erasure:<tenant>:<time>`), when one was written. */
  record?: string;
  /** Records of earlier erasures of the tenant that were cut short, marked done by this one. */
  finished?: string[];
}

const ROUNDS = 3;
const POLL_MS = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function zeroCounts(): ErasureCounts {
  return { schedules: 0, runs: 0, executions: 0, cancelled: 0, terminated: 0, storeRuns: 0, documents: 0, failures: 0, links: 0, series: 0, ledger: 0 };
}

/** What an erasure keeps track of across its rounds: each thing counted once. */
class Tally {
  readonly schedules = new Set<string>();
  readonly runs = new Set<string>();
  readonly executions = new Set<string>();
  readonly ledgers = new Set<string>();
  readonly series = new Set<string>();
  readonly storeRuns = new Map<string, { documents: number; failures: number; links: number }>();
  /** Every store run deleted, empty ones too: swept again at the end. */
  readonly deleted = new Set<string>();
  cancelled = 0;
  terminated = 0;

  add(inv: TenantInventory): void {
    for (const s of inv.schedules) this.schedules.add(s);
    for (const e of inv.executions) {
      this.executions.add(e.runId);
      if (e.type === LEDGER_WORKFLOW_TYPE) this.ledgers.add(e.workflowId);
      else this.runs.add(e.workflowId);
    }
    for (const s of inv.series) if (s.ofOthers === 0) this.series.add(s.name);
    for (const r of inv.storeRuns) {
      if (r.documents + r.failures + r.links === 0 && !this.storeRuns.has(r.runId)) continue;
      const seen = this.storeRuns.get(r.runId);
      // The larger count: a run still writing when it was counted has more when it is deleted.
      this.storeRuns.set(r.runId, seen
        ? { documents: Math.max(seen.documents, r.documents), failures: Math.max(seen.failures, r.failures), links: Math.max(seen.links, r.links) }
        : { documents: r.documents, failures: r.failures, links: r.links });
    }
  }

  counts(): ErasureCounts {
    const c = zeroCounts();
    c.schedules = this.schedules.size;
    c.runs = this.runs.size;
    c.executions = this.executions.size;
    c.cancelled = this.cancelled;
    c.terminated = this.terminated;
    c.series = this.series.size;
    c.ledger = this.ledgers.size;
    for (const r of this.storeRuns.values()) {
      c.storeRuns += 1;
      c.documents += r.documents;
      c.failures += r.failures;
      c.links += r.links;
    }
    return c;
  }
}

function isEmpty(inv: TenantInventory): boolean {
  return inv.executions.length === 0 && inv.schedules.length === 0 && inv.series.every((s) => s.ofOthers > 0)
    && inv.storeRuns.every((r) => r.documents + r.failures + r.links === 0);
}

/** gRPC NOT_FOUND: what was to be removed is gone already (an earlier, interrupted erasure). */
function notFound(err: unknown): boolean {
  const e = err as { code?: number; name?: string };
  return e.code === 5 || e.name === 'WorkflowNotFoundError' || e.name === 'ScheduleNotFoundError';
}

async function ignoreNotFound(op: () => Promise<unknown>): Promise<void> {
  try {
    await op();
  } catch (err) {
    if (!notFound(err)) throw err;
  }
}

/** Cancels the running runs and waits for them to close; those still running at the deadline are terminated. */
async function stopRuns(client: Client, running: TenantExecution[], waitMs: number, reason: string, tally: Tally): Promise<void> {
  if (running.length === 0) return;
  for (const e of running) await ignoreNotFound(() => client.workflow.getHandle(e.workflowId, e.runId).cancel());
  tally.cancelled += running.length;
  const deadline = Date.now() + waitMs;
  let open = running;
  while (open.length > 0 && Date.now() < deadline) {
    await sleep(POLL_MS);
    const still: TenantExecution[] = [];
    for (const e of open) {
      try {
        if ((await client.workflow.getHandle(e.workflowId, e.runId).describe()).status.name === 'RUNNING') still.push(e);
      } catch (err) {
        if (!notFound(err)) throw err;
      }
    }
    open = still;
  }
  for (const e of open) {
    await ignoreNotFound(() => client.workflow.getHandle(e.workflowId, e.runId).terminate(reason));
    tally.terminated += 1;
  }
}

/** Waits until visibility lists none of the tenant, or the deadline; returns what it still lists. */
async function waitUntilUnlisted(client: Client, tenant: string, waitMs: number): Promise<TenantExecution[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left: TenantExecution[] = [];
    for await (const w of client.workflow.list({ query: tenantQuery(tenant) })) {
      left.push({ workflowId: w.workflowId, runId: w.runId, type: w.type, status: w.status.name });
    }
    if (left.length === 0 || Date.now() >= deadline) return left;
    await sleep(POLL_MS * 2);
  }
}

/** One round: what the inventory found, removed in the order that loses nothing. */
async function eraseRound(client: Client, store: DocumentStore, inv: TenantInventory, options: Required<Pick<EraseTenantOptions, 'cancelWaitMs'>>, tally: Tally): Promise<void> {
  const reason = `erasure of tenant ${inv.tenant}`;
  for (const id of inv.schedules) await ignoreNotFound(() => client.schedule.getHandle(id).delete());

  await stopRuns(client, inv.executions.filter((e) => e.status === 'RUNNING' && e.type !== LEDGER_WORKFLOW_TYPE), options.cancelWaitMs, reason, tally);

  // Counted again now that the runs have closed: what is deleted is what they left.
  const storeRuns: TenantStoreRun[] = [];
  await eachLimited(inv.storeRuns, PARALLEL, async (r) => { storeRuns.push({ runId: r.runId, ...(await store.count(r.runId)) }); });
  tally.add({ ...inv, storeRuns });
  await eachLimited(inv.storeRuns, PARALLEL, async (r) => {
    await store.deleteRun(r.runId);
    tally.deleted.add(r.runId);
  });
  for (const s of inv.series) if (s.ofOthers === 0) await store.deleteRun(seriesStoreRun(s.name));

  // The ledger after the runs: a cancelled run settles its credits on it (and would start it again).
  const ledgers = new Set(inv.executions.filter((e) => e.type === LEDGER_WORKFLOW_TYPE && e.status === 'RUNNING').map((e) => e.workflowId));
  for (const id of ledgers) await ignoreNotFound(() => client.workflow.getHandle(id).terminate(reason));

  await eachLimited(inv.executions, PARALLEL, (e) => ignoreNotFound(
    () => client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId: e.workflowId, runId: e.runId } }),
  ));
}

/**
 * Marks done the records of the tenant's erasures that were cut short (`begun` only): an erasure
 * that ends with nothing of the tenant left has finished their work. Their counts stay what each
 * found when it began.
 */
async function finishInterrupted(store: DocumentStore, tenant: string): Promise<string[]> {
  const unfinished = (await listErasures(store, tenant)).filter((r) => r.status === 'begun');
  for (const r of unfinished) await writeErasureRecord(store, { ...r, status: 'done' });
  return unfinished.map((r) => r.url);
}

/**
 * Erases the tenant: its schedules, runs (cancelled, then their executions deleted), store runs
 * and change series, and its credit ledger; writes an erasure record (counts only) to the store.
 * With `dryRun`, finds and counts only. Run again after an interruption: it goes on where the
 * first stopped; once all is gone it finds nothing, writes no new record and marks the records
 * of erasures cut short done.
 */
export async function eraseTenant(client: Client, store: DocumentStore, tenant: string, options: EraseTenantOptions = {}): Promise<ErasureReport> {
  const checked = tenantSchema.safeParse(tenant);
  if (!checked.success) throw new Error(`tenant: ${checked.error.issues[0]?.message ?? 'invalid'}`);
  const prefix = options.storeRunPrefix;
  if (prefix !== undefined && !/^[A-Za-z0-9._-]{3,128}$/.test(prefix)) throw new Error('storeRunPrefix: must be 3-128 letters, digits, dot, dash or underscore');
  const cancelWaitMs = options.cancelWaitMs ?? 60_000;
  const visibilityWaitMs = options.visibilityWaitMs ?? 60_000;

  const find = () => tenantInventory(client, store, tenant, { storeRunPrefix: prefix });
  const first = await find();
  const tally = new Tally();
  tally.add(first);
  const report = (found: boolean, extra: Partial<ErasureReport> = {}): ErasureReport => ({
    tenant,
    dryRun: options.dryRun === true,
    found,
    counts: found ? tally.counts() : zeroCounts(),
    keptSeries: first.series.filter((s) => s.ofOthers > 0),
    keptStoreRuns: first.keptStoreRuns,
    stillListed: 0,
    ...extra,
  });
  if (isEmpty(first)) {
    if (options.dryRun) return report(false);
    const finished = await finishInterrupted(store, tenant);
    return report(false, finished.length > 0 ? { finished } : {});
  }
  if (options.dryRun) return report(true);

  const at = new Date().toISOString();
  const url = recordUrl(tenant, at);
  const why = options.reason !== undefined ? { reason: options.reason } : {};
  // Written before anything is deleted: an erasure cut short still left its mark.
  await writeErasureRecord(store, { url, tenant, at, status: 'begun', ...why, counts: tally.counts() });

  let inv = first;
  let left: TenantExecution[] = [];
  for (let round = 1; ; round++) {
    await eraseRound(client, store, inv, { cancelWaitMs }, tally);
    left = await waitUntilUnlisted(client, tenant, visibilityWaitMs);
    const fresh = left.filter((e) => !tally.executions.has(e.runId));
    // Besides the listing's lag: a run that started meanwhile, or the ledger started again by one.
    const ledgerBack = (await tenantExecutions(client, tenant)).some((e) => e.type === LEDGER_WORKFLOW_TYPE && !tally.executions.has(e.runId));
    if ((fresh.length === 0 && !ledgerBack) || round >= ROUNDS) break;
    inv = await find();
  }
  // A cancelled run's activity may have written a last page after its workflow closed: the
  // workflows are gone now (its heartbeat fails), so a second delete leaves the store runs empty.
  for (const runId of tally.deleted) await store.deleteRun(runId);

  const counts = tally.counts();
  await writeErasureRecord(store, { url, tenant, at, status: 'done', ...why, counts });
  const finished = await finishInterrupted(store, tenant);
  return { ...report(true), counts, stillListed: left.length, record: url, ...(finished.length > 0 ? { finished } : {}) };
}
