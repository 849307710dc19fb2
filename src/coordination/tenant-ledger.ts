// A tenant's ledger workflow (workflows/tenant-ledger.ts) seen from outside it: reserve, settle,
// read, each started on first use. Called by the activities (with the worker's own client and
// task queue) and by the client (`webdata tenants`, a backend's own tools).
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { TENANT } from '../search-attributes.js';
import { withSearchAttributeHint } from './search-attribute-check.js';
import { DEFAULT_TASK_QUEUE } from '../shared/task-queue.js';
import { ledgerWorkflowId, LEDGER_WORKFLOW_TYPE, reserveCreditsUpdate, settleCreditsUpdate, tenantUsageQuery } from '../shared/tenant-ledger-messages.js';
import type { Reservation, TenantUsage } from '../shared/tenant-ledger-rules.js';
import { priorityOf, tenantSchema } from '../shared/tenant.js';

export type { Reservation, TenantUsage } from '../shared/tenant-ledger-rules.js';

function checkedTenant(tenant: string): string {
  const checked = tenantSchema.safeParse(tenant);
  if (!checked.success) throw new Error(`tenant: ${checked.error.issues[0]?.message ?? 'invalid'}`);
  return tenant;
}

export interface LedgerOptions {
  /** The worker task queue that runs the ledger workflows (default webdata). */
  taskQueue?: string;
}

/** Sends an update to the tenant's ledger, starting the ledger first when it does not exist. */
export async function ledgerUpdate<Ret, Arg>(client: Client, tenant: string, update: UpdateDefinition<Ret, [Arg]>, arg: Arg, options: LedgerOptions = {}): Promise<Ret> {
  checkedTenant(tenant);
  const start = new WithStartWorkflowOperation(LEDGER_WORKFLOW_TYPE, {
    workflowId: ledgerWorkflowId(tenant),
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [{ tenant }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    priority: priorityOf({ tenant }),
    typedSearchAttributes: [{ key: TENANT, value: tenant }],
    staticSummary: `credit ledger of tenant ${tenant}`,
  });
  return withSearchAttributeHint(client, () => client.workflow.executeUpdateWithStart(update, { args: [arg], startWorkflowOperation: start }));
}

export function reserveTenantCredits(client: Client, tenant: string, key: string, credits: number, options: LedgerOptions = {}): Promise<Reservation> {
  return ledgerUpdate(client, tenant, reserveCreditsUpdate, { key, credits }, options);
}

export function settleTenantCredits(client: Client, tenant: string, key: string, credits: number, options: LedgerOptions = {}): Promise<TenantUsage> {
  return ledgerUpdate(client, tenant, settleCreditsUpdate, { key, credits }, options);
}

/** The tenant's usage this month, or null when it has no ledger yet (no budget, nothing settled). */
export async function tenantUsage(client: Client, tenant: string, except?: string): Promise<TenantUsage | null> {
  try {
    return await client.workflow.getHandle(ledgerWorkflowId(checkedTenant(tenant))).query(tenantUsageQuery, { except });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}
