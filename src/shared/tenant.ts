// The tenant a run works for (the backend's own customer) and the Temporal priority that carries
// it: fairnessKey = tenant, so a fairness-enabled task queue shares dispatch between tenants
// instead of serving the biggest backlog first. Shared by the client (start options) and the
// workflows (activity options); zod and @temporalio/common only, so safe in workflows.
import { z } from 'zod';
import type { Priority } from '@temporalio/common';

/** The tenant of a run that names none. */
export const DEFAULT_TENANT = 'default';

/** Fairness keys are limited to 64 bytes by the server; ASCII keeps characters and bytes equal. */
export function tenantSchemaOf() {
  return z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, { error: 'must be 1-64 letters, digits, dot, dash or underscore' });
}

/** Temporal's default range of priority keys: 1 (first) to 5 (last); unset means 3. */
export function priorityKeySchemaOf() {
  return z.number().int().min(1).max(5);
}

// The workflows build their own with the functions above: the workflow bundle shares this module
// between runs, frozen, and zod cannot parse with a frozen schema.
export const tenantSchema = tenantSchemaOf();
export const priorityKeySchema = priorityKeySchemaOf();

/** The fields of a workflow input that choose its priority. */
export interface TenantFields {
  tenant?: string;
  priorityKey?: number;
}

/** Priority for a run's workflow and activity starts: fairnessKey = tenant (default `default`). */
export function priorityOf(fields: TenantFields): Priority {
  return {
    fairnessKey: fields.tenant ?? DEFAULT_TENANT,
    ...(fields.priorityKey !== undefined ? { priorityKey: fields.priorityKey } : {}),
  };
}
