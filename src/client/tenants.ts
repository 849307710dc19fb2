// Tenants' monthly credit budgets: each tenant's ledger workflow (workflows/tenant-ledger.ts),
// started on first use. Called by the worker's activities (reserve, settle, read) and by
// `webdata tenants` (list, set a budget).
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { TENANT } from '../search-attributes.js';
import { LEDGER_WORKFLOW_TYPE, ledgerWorkflowId, reserveCreditsUpdate, setTenantBudgetUpdate, settleCreditsUpdate, tenantUsageQuery } from '../workflows/tenant-ledger-messages.js';
import type { Reservation, TenantUsage } from '../workflows/tenant-ledger-rules.js';
import { priorityOf, tenantSchema } from '../workflows/tenant.js';
import { tenantBudgetChangedSignal } from '../workflows/definitions.js';
import { DEFAULT_TASK_QUEUE } from './pipeline.js';
import { withSearchAttributeHint } from './search-attribute-check.js';
import { runningPipelinesQuery } from './tenant-runs.js';

export type { Reservation, TenantUsage } from '../workflows/tenant-ledger-rules.js';

function checkedTenant(tenant: string): string {
  const checked = tenantSchema.safeParse(tenant);
  if (!checked.success) throw new Error(`tenant: ${checked.error.issues[0]?.message ?? 'invalid'}`);
  return tenant;
}

/** Sends an update to the tenant's ledger, starting the ledger first when it does not exist. */
async function ledgerUpdate<Ret, Arg>(client: Client, tenant: string, update: UpdateDefinition<Ret, [Arg]>, arg: Arg, taskQueue: string): Promise<Ret> {
  checkedTenant(tenant);
  const start = new WithStartWorkflowOperation(LEDGER_WORKFLOW_TYPE, {
    workflowId: ledgerWorkflowId(tenant),
    taskQueue,
    args: [{ tenant }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    priority: priorityOf({ tenant }),
    typedSearchAttributes: [{ key: TENANT, value: tenant }],
    staticSummary: `credit ledger of tenant ${tenant}`,
  });
  return withSearchAttributeHint(client, () => client.workflow.executeUpdateWithStart(update, { args: [arg], startWorkflowOperation: start }));
}

export interface LedgerOptions {
  /** The worker task queue that runs the ledger workflows (default webdata). */
  taskQueue?: string;
}

export function reserveTenantCredits(client: Client, tenant: string, key: string, credits: number, options: LedgerOptions = {}): Promise<Reservation> {
  return ledgerUpdate(client, tenant, reserveCreditsUpdate, { key, credits }, options.taskQueue ?? DEFAULT_TASK_QUEUE);
}

export function settleTenantCredits(client: Client, tenant: string, key: string, credits: number, options: LedgerOptions = {}): Promise<TenantUsage> {
  return ledgerUpdate(client, tenant, settleCreditsUpdate, { key, credits }, options.taskQueue ?? DEFAULT_TASK_QUEUE);
}

/**
 * Sets the tenant's monthly credit budget (null: none), then tells the tenant's running pipelines,
 * so that a run waiting for credits goes on at once rather than at its next periodic look.
 */
export async function setTenantBudget(client: Client, tenant: string, credits: number | null, options: LedgerOptions = {}): Promise<TenantUsage> {
  const usage = await ledgerUpdate(client, tenant, setTenantBudgetUpdate, { credits }, options.taskQueue ?? DEFAULT_TASK_QUEUE);
  await notifyRunningPipelines(client, tenant);
  return usage;
}

/**
 * Signals tenantBudgetChanged to the tenant's running pipelines. Best effort: the budget is set
 * already, and a run this misses (visibility not caught up, a cluster without the search
 * attribute) re-reads its ledger within TENANT_RECHECK_MS anyway.
 */
async function notifyRunningPipelines(client: Client, tenant: string): Promise<void> {
  try {
    const signals: Array<Promise<void>> = [];
    for await (const run of client.workflow.list({ query: runningPipelinesQuery(tenant) })) {
      signals.push(client.workflow.getHandle(run.workflowId, run.runId).signal(tenantBudgetChangedSignal).catch(() => undefined));
    }
    await Promise.all(signals);
  } catch {
    // Listing failed: the runs' periodic look covers it.
  }
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

/** Every tenant with a ledger, with its usage this month, by tenant name. */
export async function listTenantUsage(client: Client): Promise<TenantUsage[]> {
  const out: TenantUsage[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowType = '${LEDGER_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'` })) {
    const tenant = w.typedSearchAttributes.get(TENANT);
    if (!tenant) continue;
    const usage = await tenantUsage(client, tenant);
    if (usage) out.push(usage);
  }
  return out.sort((a, b) => a.tenant.localeCompare(b.tenant));
}
