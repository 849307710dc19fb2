// A run's side of its tenant's monthly budget: read what is left, reserve a stage's worst case,
// settle what it cost. The ledger is a workflow (workflows/tenant-ledger.ts) reached with the
// worker's own Temporal client, on the worker's task queue, started on first use.
import { Context } from '@temporalio/activity';
import { ledgerUpdate, settleTenantCredits, tenantUsage, type Reservation, type TenantUsage } from '../coordination/tenant-ledger.js';
import { acquireTenantSlot, defaultsToPass, releaseTenantSlots, type SlotAnswer } from '../coordination/tenant-limits.js';
import { reserveCreditsUpdate } from '../shared/tenant-ledger-messages.js';

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
      // The defaults for all tenants go along: the ledger applies them unless the tenant has its own limits.
      const defaults = await defaultsToPass(client);
      return ledgerUpdate(client, input.tenant, reserveCreditsUpdate, { key: input.key, credits: input.credits, ...(defaults ? { defaults } : {}) }, { taskQueue });
    },
    /** Takes a slot of the tenant's runs in flight (or a place in line) and reads its usage, in one call. */
    async acquireTenantSlot(input: { tenant: string; run: string; except?: string }): Promise<SlotAnswer & { usage: TenantUsage }> {
      const { client, taskQueue } = temporal();
      return acquireTenantSlot(client, input.tenant, input.run, input.except, { taskQueue });
    },
    /** Gives back the run's slot (or place in line) when it ends. */
    async releaseTenantSlot(input: { tenant: string; run: string }): Promise<void> {
      const { client, taskQueue } = temporal();
      await releaseTenantSlots(client, input.tenant, [input.run], { taskQueue });
    },
    async settleTenantCredits(input: { tenant: string; key: string; credits: number }): Promise<TenantUsage> {
      const { client, taskQueue } = temporal();
      return settleTenantCredits(client, input.tenant, input.key, input.credits, { taskQueue });
    },
  };
}
