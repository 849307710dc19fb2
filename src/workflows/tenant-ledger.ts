// webdataTenantLedger: one long-lived workflow per tenant holding its monthly credit budget and
// usage, so every run and schedule of the tenant, on any worker, spends from one durable account.
// Runs reserve a stage's worst case before it spends and settle what it cost (updates: each one
// is applied once, in order, and survives any worker's death); `webdata tenants` reads it.
import { allHandlersFinished, condition, continueAsNew, getExternalWorkflowHandle, deprecatePatch, proxySinks, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebDataMetricsSinks } from '../shared/workflow-metrics-spec.js';
import { reserveCreditsUpdate, setTenantBudgetUpdate, settleCreditsUpdate, tenantUsageQuery } from '../shared/tenant-ledger-messages.js';
import { newLedger, reserve, settle, usage, type LedgerState, type TenantUsage } from '../shared/tenant-ledger-rules.js';
import { acquireSlotUpdate, releaseSlotsUpdate, setTenantLimitsUpdate } from '../shared/tenant-limit-messages.js';
import { acquireSlot, limitsProblem, limitsView, releaseSlot, runsToWake, type TenantLimits } from '../shared/tenant-limit-rules.js';
import { tenantBudgetChangedSignal } from './definitions.js';

const { webdataMetrics } = proxySinks<WebDataMetricsSinks>();

const KEY = /^[A-Za-z0-9._/:#-]{1,300}$/;

function checkAmount(arg: { key?: unknown; credits?: unknown } | undefined): void {
  if (typeof arg?.key !== 'string' || !KEY.test(arg.key)) throw new Error('key: must be 1-300 letters, digits or ._/:#-');
  if (typeof arg.credits !== 'number' || !Number.isInteger(arg.credits) || arg.credits < 0) throw new Error('credits: must be a whole number, 0 or more');
}

function checkDefaults(defaults: TenantLimits | undefined): void {
  if (defaults === undefined) return;
  const problem = limitsProblem(defaults);
  if (problem !== undefined) throw new Error(`defaults: ${problem}`);
}

/** Usage this month with the tenant's limits; `state` is changed (a query passes a copy). */
function view(state: LedgerState, now: number, except?: string): TenantUsage {
  return { ...usage(state, now, except), limits: limitsView(state, now, except) };
}

export async function webdataTenantLedger(input: { tenant: string }, carried?: LedgerState): Promise<void> {
  const state = carried ?? newLedger(input.tenant, Date.now());
  // Runs in line a slot became free for: told by the main loop (a handler sends no command of its own).
  const outbox = new Set<string>();
  const wake = () => {
    for (const run of runsToWake(state)) outbox.add(run);
  };
  setHandler(tenantUsageQuery, (arg) => view(JSON.parse(JSON.stringify(state)) as LedgerState, Date.now(), arg?.except));
  setHandler(acquireSlotUpdate, ({ run, defaults, except }) => {
    if (defaults) state.defaults = defaults;
    const answer = acquireSlot(state, run, Date.now());
    return { ...answer, usage: view(state, Date.now(), except) };
  }, {
    validator: (arg) => {
      if (typeof arg?.run !== 'string' || !KEY.test(arg.run)) throw new Error('run: must be 1-300 letters, digits or ._/:#-');
      checkDefaults(arg.defaults);
    },
  });
  setHandler(releaseSlotsUpdate, ({ runs }) => {
    for (const run of runs) releaseSlot(state, run);
    wake();
    return view(state, Date.now());
  }, {
    validator: (arg) => {
      if (!Array.isArray(arg?.runs) || arg.runs.length > 1000 || arg.runs.some((r: unknown) => typeof r !== 'string' || !KEY.test(r))) throw new Error('runs: must be a list of workflow ids');
    },
  });
  setHandler(setTenantLimitsUpdate, ({ limits, follow, defaults }) => {
    if (defaults) state.defaults = defaults;
    if (limits || follow?.length) {
      const own = { ...(state.limits ?? {}), ...(limits ?? {}) };
      for (const key of follow ?? []) delete own[key];
      state.limits = own;
    }
    wake();
    return view(state, Date.now());
  }, {
    validator: (arg) => {
      const problem = arg?.limits === undefined ? undefined : limitsProblem(arg.limits);
      if (problem !== undefined) throw new Error(problem);
      if (arg?.follow !== undefined && (!Array.isArray(arg.follow) || arg.follow.some((k: unknown) => k !== 'maxRunsInFlight' && k !== 'creditsPerHour'))) throw new Error('follow: must list maxRunsInFlight and/or creditsPerHour');
      checkDefaults(arg?.defaults);
    },
  });
  setHandler(reserveCreditsUpdate, ({ key, credits, defaults }) => {
    if (defaults) state.defaults = defaults;
    const result = reserve(state, key, credits, Date.now());
    if (!result.granted) webdataMetrics.record('webdata_tenant_budget_refusals', 1, { tenant: state.tenant });
    return result;
  }, { validator: (arg) => { checkAmount(arg); checkDefaults(arg.defaults); } });
  setHandler(settleCreditsUpdate, ({ key, credits }) => {
    const before = state.used;
    const after = settle(state, key, credits, Date.now());
    if (after.used > before) webdataMetrics.record('webdata_tenant_credits', after.used - before, { tenant: state.tenant });
    return { ...after, limits: limitsView(state, Date.now()) };
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
  // A ledger tells runs in line that a slot is free for them. A notice that fails found its run
  // closed: its slot or place in line comes back.
  const sendNotices = async () => {
    const runs = [...outbox];
    outbox.clear();
    // Deprecated, not removed: a ledger started on 0.x (it lives on by continue-as-new) may be
    // moved to 1.0 mid-run, and its history has the marker (test/replay/replay.test.ts).
    deprecatePatch('tenant-slot-notices');
    await Promise.all(runs.map(async (run) => {
      try {
        await getExternalWorkflowHandle(run).signal(tenantBudgetChangedSignal);
      } catch {
        if (releaseSlot(state, run)) wake();
      }
    }));
  };
  // Lives as long as the tenant; its history is handed over before it grows large.
  for (;;) {
    await condition(() => outbox.size > 0 || workflowInfo().continueAsNewSuggested);
    if (outbox.size > 0) {
      await sendNotices();
      continue;
    }
    await condition(allHandlersFinished);
    if (outbox.size === 0) break;
  }
  await continueAsNew<typeof webdataTenantLedger>(input, state);
}
