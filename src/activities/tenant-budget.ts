// A run's side of its tenant's monthly budget: read what is left, reserve a stage's worst case,
// settle what it cost. The ledger is a workflow (workflows/tenant-ledger.ts) reached with the
// worker's own Temporal client, on the worker's task queue, started on first use.
import { Context } from '@temporalio/activity';
import { reserveTenantCredits, settleTenantCredits, tenantUsage, type Reservation, type TenantUsage } from '../coordination/tenant-ledger.js';

function temporal() {
  const ctx = Context.current();
  return { client: ctx.client, taskQueue: ctx.info.taskQueue };
}

export function createTenantBudgetActivities() {
  return {
    /** The tenant's usage this month (what is left not counting `except`'s own hold); null: no ledger, no budget. */
    async tenantCredits(input: { tenant: string; except?: string }): Promise<TenantUsage | null> {
      return tenantUsage(temporal().client, input.tenant, input.except);
    },
    async reserveTenantCredits(input: { tenant: string; key: string; credits: number }): Promise<Reservation> {
      const { client, taskQueue } = temporal();
      return reserveTenantCredits(client, input.tenant, input.key, input.credits, { taskQueue });
    },
    async settleTenantCredits(input: { tenant: string; key: string; credits: number }): Promise<TenantUsage> {
      const { client, taskQueue } = temporal();
      return settleTenantCredits(client, input.tenant, input.key, input.credits, { taskQueue });
    },
  };
}
