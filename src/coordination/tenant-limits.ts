// Per-tenant limits seen from outside the workflows: the defaults for all tenants (one workflow
// per namespace), a tenant's own limits and its run slots (on its ledger). Called by the
// activities (with the worker's own client and task queue) and by the client (`webdata tenants`).
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../shared/task-queue.js';
import type { TenantUsage } from '../shared/tenant-ledger-rules.js';
import {
  acquireSlotUpdate,
  releaseSlotsUpdate,
  setTenantDefaultsUpdate,
  setTenantLimitsUpdate,
  TENANT_DEFAULTS_WORKFLOW_ID,
  TENANT_DEFAULTS_WORKFLOW_TYPE,
  tenantDefaultsQuery,
} from '../shared/tenant-limit-messages.js';
import { NO_LIMITS, type LimitOverride, type SlotAnswer, type TenantLimits } from '../shared/tenant-limit-rules.js';
import { withSearchAttributeHint } from './search-attribute-check.js';
import { ledgerUpdate, type LedgerOptions } from './tenant-ledger.js';

export type { LimitOverride, SlotAnswer, TenantLimits, TenantLimitsView } from '../shared/tenant-limit-rules.js';

/** Holders looked at when a run is refused a slot: enough for any sensible limit plus the line before it. */
const HOLDERS_CHECKED = 50;

/** The limits of every tenant without its own; none when they were never set. */
export async function tenantDefaults(client: Client): Promise<TenantLimits> {
  try {
    return await client.workflow.getHandle(TENANT_DEFAULTS_WORKFLOW_ID).query(tenantDefaultsQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { ...NO_LIMITS };
    throw err;
  }
}

/**
 * The defaults as a run's activity passes them to its ledger: undefined when they cannot be read
 * now (the ledger then keeps the last ones it was given), so a reservation never fails on them.
 */
export async function defaultsToPass(client: Client): Promise<TenantLimits | undefined> {
  try {
    return await tenantDefaults(client);
  } catch {
    return undefined;
  }
}

/** Sets the defaults for all tenants (a field null: no limit; absent: unchanged); starts their workflow on first use. */
export async function setTenantDefaults(client: Client, limits: LimitOverride, options: LedgerOptions = {}): Promise<TenantLimits> {
  const start = new WithStartWorkflowOperation(TENANT_DEFAULTS_WORKFLOW_TYPE, {
    workflowId: TENANT_DEFAULTS_WORKFLOW_ID,
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: 'limits of every tenant without its own',
  });
  return withSearchAttributeHint(client, () => client.workflow.executeUpdateWithStart(setTenantDefaultsUpdate, { args: [limits], startWorkflowOperation: start }));
}

/** Sets a tenant's own limits (null: no limit) or, for the fields in `follow`, makes it follow the defaults again. */
export function setLedgerLimits(client: Client, tenant: string, change: { limits?: LimitOverride; follow?: Array<keyof TenantLimits>; defaults?: TenantLimits }, options: LedgerOptions = {}): Promise<TenantUsage> {
  return ledgerUpdate(client, tenant, setTenantLimitsUpdate, change, options);
}

/** Whether a run (by workflow id) has ended or is gone: its slot must not be held forever. */
async function closed(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name !== 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return true;
    throw err;
  }
}

/**
 * A run takes a slot of its tenant (or keeps its place in line) and reads its tenant's usage in
 * the same round trip. When refused, the runs holding slots or ahead in line are looked at: one
 * that closed without giving its slot back (terminated, timed out, deleted) gives it back now.
 */
export async function acquireTenantSlot(client: Client, tenant: string, run: string, except: string | undefined, options: LedgerOptions = {}): Promise<SlotAnswer & { usage: TenantUsage }> {
  const defaults = await defaultsToPass(client);
  const ask = () => ledgerUpdate(client, tenant, acquireSlotUpdate, { run, ...(defaults ? { defaults } : {}), ...(except !== undefined ? { except } : {}) }, options);
  const answer = await ask();
  if (answer.granted || !answer.holders?.length) return answer;
  const others = answer.holders.filter((id) => id !== run).slice(0, HOLDERS_CHECKED);
  const gone: string[] = [];
  for (const id of others) if (await closed(client, id)) gone.push(id);
  if (gone.length === 0) return answer;
  await ledgerUpdate(client, tenant, releaseSlotsUpdate, { runs: gone }, options);
  return ask();
}

/** Gives back the slots (and places in line) of runs that ended. */
export function releaseTenantSlots(client: Client, tenant: string, runs: string[], options: LedgerOptions = {}): Promise<TenantUsage> {
  return ledgerUpdate(client, tenant, releaseSlotsUpdate, { runs }, options);
}
