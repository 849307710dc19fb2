// Messages of per-tenant limits: the slot updates of a tenant's ledger workflow and the workflow
// that keeps the defaults for all tenants. Plain definitions (no @temporalio/workflow): the client
// sets limits with them and the activities take and give back slots with them.
import { query, update } from './message-definitions.js';
import type { TenantUsage } from './tenant-ledger-rules.js';
import type { LimitOverride, SlotAnswer, TenantLimits } from './tenant-limit-rules.js';

export const TENANT_DEFAULTS_WORKFLOW_TYPE = 'webdataTenantDefaults';
/** One per namespace: the limits of every tenant without its own. */
export const TENANT_DEFAULTS_WORKFLOW_ID = 'webdata-tenant-defaults';

/** A run takes a slot before it first spends (or its place in line), and reads its tenant's usage in the same call. */
export const acquireSlotUpdate = update<SlotAnswer & { usage: TenantUsage }, [{ run: string; defaults?: TenantLimits; except?: string }]>('acquireTenantSlot');
/** Runs that ended (or were found closed) give back their slots and places in line. */
export const releaseSlotsUpdate = update<TenantUsage, [{ runs: string[] }]>('releaseTenantSlots');
/** Sets the tenant's own limits (a field null: no limit; absent: unchanged) and/or the defaults it follows. */
export const setTenantLimitsUpdate = update<TenantUsage, [{ limits?: LimitOverride; follow?: Array<keyof TenantLimits>; defaults?: TenantLimits }]>('setTenantLimits');

export const tenantDefaultsQuery = query<TenantLimits>('tenantDefaults');
export const setTenantDefaultsUpdate = update<TenantLimits, [LimitOverride]>('setTenantDefaults');
