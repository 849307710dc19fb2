// Tenants' monthly credit budgets as `webdata tenants` sees them: set a budget (and tell the
// tenant's running pipelines), list every ledger. Reserving, settling and reading one ledger are
// in coordination/tenant-ledger.ts, shared with the worker's activities.
import type { Client } from '@temporalio/client';
import { TENANT } from '../search-attributes.js';
import { ledgerUpdate, tenantUsage, type LedgerOptions, type TenantUsage } from '../coordination/tenant-ledger.js';
import { LEDGER_WORKFLOW_TYPE, setTenantBudgetUpdate } from '../shared/tenant-ledger-messages.js';
import { tenantBudgetChangedSignal } from '../workflows/definitions.js';
import { runningPipelinesQuery } from './tenant-runs.js';
import { defaultsToPass, setLedgerLimits, setTenantDefaults } from '../coordination/tenant-limits.js';
import { limitsProblem, type TenantLimits } from '../shared/tenant-limit-rules.js';

/**
 * Sets the tenant's monthly credit budget (null: none), then tells the tenant's running pipelines,
 * so that a run waiting for credits goes on at once rather than at its next periodic look.
 */
export async function setTenantBudget(client: Client, tenant: string, credits: number | null, options: LedgerOptions = {}): Promise<TenantUsage> {
  const usage = await ledgerUpdate(client, tenant, setTenantBudgetUpdate, { credits }, options);
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

/** Names the defaults for all tenants in setTenantLimits (no tenant can be called so). */
export const ALL_TENANTS = '*';

/** A limit: a whole number, null for no limit, or (a tenant's own) 'default' to follow the default for all tenants again. */
export interface TenantLimitsChange {
  maxRunsInFlight?: number | null | 'default';
  creditsPerHour?: number | null | 'default';
}

/**
 * Sets a tenant's limits (runs in flight, credits per hour), or with ALL_TENANTS the default for
 * every tenant without its own. A field left out is unchanged. Runs waiting for a slot or for the
 * hour are told at once (the tenants' running pipelines are signalled, as for a budget).
 */
export async function setTenantLimits(client: Client, tenant: string, change: TenantLimitsChange, options: LedgerOptions = {}): Promise<TenantUsage | TenantLimits> {
  const limits: Partial<TenantLimits> = {};
  const follow: Array<keyof TenantLimits> = [];
  for (const key of ['maxRunsInFlight', 'creditsPerHour'] as const) {
    const value = change[key];
    if (value === 'default') {
      if (tenant === ALL_TENANTS) throw new Error(`${key}: 'default' is for one tenant (it follows the default again); give a number or null for all tenants`);
      follow.push(key);
    } else if (value !== undefined) {
      limits[key] = value;
    }
  }
  const problem = limitsProblem(limits);
  if (problem !== undefined) throw new Error(problem);
  if (tenant !== ALL_TENANTS) {
    const defaults = await defaultsToPass(client);
    const usage = await setLedgerLimits(client, tenant, { limits, follow, ...(defaults ? { defaults } : {}) }, options);
    await notifyRunningPipelines(client, tenant);
    return usage;
  }
  const defaults = await setTenantDefaults(client, limits, options);
  // Every ledger learns the new default now (runs also pass it at their next reservation).
  for await (const w of client.workflow.list({ query: `WorkflowType = '${LEDGER_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'` })) {
    const one = w.typedSearchAttributes.get(TENANT);
    if (!one) continue;
    await setLedgerLimits(client, one, { defaults }, options);
    await notifyRunningPipelines(client, one);
  }
  return defaults;
}
