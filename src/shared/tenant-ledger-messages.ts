// Messages of a tenant's ledger workflow, shared by the workflow, the activities that reserve and
// settle a run's credits, and the client (`webdata tenants`).
// Plain definitions (no @temporalio/workflow): the client reads and sets budgets with them.
import { query, update } from './message-definitions.js';
import type { Reservation, TenantUsage } from './tenant-ledger-rules.js';
import type { TenantLimits } from './tenant-limit-rules.js';

export const LEDGER_WORKFLOW_TYPE = 'webdataTenantLedger';

/** One ledger per tenant (and namespace): its workflow id. */
export function ledgerWorkflowId(tenant: string): string {
  return `webdata-tenant-${tenant}`;
}

/** Usage this month; `except` leaves out a run's own hold (what is left for that run). */
export const tenantUsageQuery = query<TenantUsage, [{ except?: string }?]>('tenantUsage');
/** Holds a stage's worst case before it spends. */
export const reserveCreditsUpdate = update<Reservation, [{ key: string; credits: number; defaults?: TenantLimits }]>('reserveCredits');
/** Records a stage's actual credits and releases its hold. */
export const settleCreditsUpdate = update<TenantUsage, [{ key: string; credits: number }]>('settleCredits');
/** Sets the monthly budget (null: none); runs waiting for credits see it at their next check. */
export const setTenantBudgetUpdate = update<TenantUsage, [{ credits: number | null }]>('setTenantBudget');
