// webdataTenantLedger: one long-lived workflow per tenant holding its monthly credit budget and
// usage, so every run and schedule of the tenant, on any worker, spends from one durable account.
// Runs reserve a stage's worst case before it spends and settle what it cost (updates: each one
// is applied once, in order, and survives any worker's death); `webdata tenants` reads it.
import { allHandlersFinished, condition, continueAsNew, proxySinks, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebDataMetricsSinks } from '../shared/workflow-metrics-spec.js';
import { reserveCreditsUpdate, setTenantBudgetUpdate, settleCreditsUpdate, tenantUsageQuery } from '../shared/tenant-ledger-messages.js';
import { newLedger, reserve, settle, usage, type LedgerState } from '../shared/tenant-ledger-rules.js';

const { webdataMetrics } = proxySinks<WebDataMetricsSinks>();

const KEY = /^[A-Za-z0-9._/:#-]{1,300}$/;

function checkAmount(arg: { key?: unknown; credits?: unknown } | undefined): void {
  if (typeof arg?.key !== 'string' || !KEY.test(arg.key)) throw new Error('key: must be 1-300 letters, digits or ._/:#-');
  if (typeof arg.credits !== 'number' || !Number.isInteger(arg.credits) || arg.credits < 0) throw new Error('credits: must be a whole number, 0 or more');
}

export async function webdataTenantLedger(input: { tenant: string }, carried?: LedgerState): Promise<void> {
  const state = carried ?? newLedger(input.tenant, Date.now());
  setHandler(tenantUsageQuery, (arg) => usage(JSON.parse(JSON.stringify(state)) as LedgerState, Date.now(), arg?.except));
  setHandler(reserveCreditsUpdate, ({ key, credits }) => {
    const result = reserve(state, key, credits, Date.now());
    if (!result.granted) webdataMetrics.record('webdata_tenant_budget_refusals', 1, { tenant: state.tenant });
    return result;
  }, { validator: checkAmount });
  setHandler(settleCreditsUpdate, ({ key, credits }) => {
    const before = state.used;
    const after = settle(state, key, credits, Date.now());
    if (after.used > before) webdataMetrics.record('webdata_tenant_credits', after.used - before, { tenant: state.tenant });
    return after;
  }, { validator: checkAmount });
  setHandler(setTenantBudgetUpdate, ({ credits }) => {
    state.budget = credits;
    return usage(state, Date.now());
  }, {
    validator: (arg) => {
      if (arg?.credits !== null && (typeof arg?.credits !== 'number' || !Number.isInteger(arg.credits) || arg.credits < 0)) {
        throw new Error('credits: must be a whole number, 0 or more (or null: no budget)');
      }
    },
  });
  // Lives as long as the tenant; its history is handed over before it grows large.
  await condition(() => workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof webdataTenantLedger>(input, state);
}
