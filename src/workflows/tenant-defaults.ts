// webdataTenantDefaults: one long-lived workflow per namespace holding the limits of every tenant
// that has none of its own (`webdata tenants --default`). The activity that takes a run's slot
// or holds its credits reads it and passes it to the tenant's ledger, so a default set once holds
// on every worker of the fleet and for tenants whose ledger does not exist yet.
import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { setTenantDefaultsUpdate, tenantDefaultsQuery } from '../shared/tenant-limit-messages.js';
import { limitsProblem, NO_LIMITS, type TenantLimits } from '../shared/tenant-limit-rules.js';

export async function webdataTenantDefaults(carried?: TenantLimits): Promise<void> {
  const state: TenantLimits = { ...NO_LIMITS, ...(carried ?? {}) };
  setHandler(tenantDefaultsQuery, () => ({ ...state }));
  setHandler(setTenantDefaultsUpdate, (limits) => {
    Object.assign(state, limits);
    return { ...state };
  }, {
    validator: (limits) => {
      const problem = limitsProblem(limits);
      if (problem !== undefined) throw new Error(problem);
    },
  });
  await condition(() => workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof webdataTenantDefaults>(state);
}
