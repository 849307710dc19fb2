// The `tenant` label of the webdata_* metrics, with bounded cardinality: the first `max` distinct
// tenants a worker process sees keep their name, later ones share `other`, so a backend with
// thousands of customers cannot blow up the metrics backend's series count.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Context } from '@temporalio/activity';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { TENANT } from '../search-attributes.js';
import { TENANT_HEADER } from '../shared/tenant-header.js';

export const OTHER_TENANT = 'other';
/** Named tenants per worker process (WEBDATA_METRICS_TENANTS overrides). */
export const DEFAULT_NAMED_TENANTS = 50;

export class TenantLabels {
  private readonly named = new Set<string>();
  constructor(readonly max: number = DEFAULT_NAMED_TENANTS) {}

  /** The label for `tenant` (no tenant: `default`, the tenant of runs that name none). */
  label(tenant: string | undefined): string {
    const name = tenant || 'default';
    if (this.named.has(name)) return name;
    if (this.named.size >= this.max) return OTHER_TENANT;
    this.named.add(name);
    return name;
  }
}

/** One set per process: every meter of the process folds the same tenants into `other`. */
export const tenantLabels = new TenantLabels(Number(process.env.WEBDATA_METRICS_TENANTS) || DEFAULT_NAMED_TENANTS);

/** The tenant a local activity was scheduled with (its header), while it runs. */
const localActivityTenant = new AsyncLocalStorage<string>();

/**
 * Add to WorkerOptions.interceptors.activity: a local activity runs with the tenant its header
 * names (createWebDataWorker and webDataPlugin register it).
 */
export const localActivityTenantInterceptor: ActivityInterceptorsFactory = () => ({
  inbound: {
    execute(input, next) {
      const payload = input.headers[TENANT_HEADER];
      let tenant: unknown;
      try {
        tenant = payload === undefined ? undefined : defaultPayloadConverter.fromPayload(payload);
      } catch {
        tenant = undefined; // A label only: a header that does not decode leaves the default.
      }
      return typeof tenant === 'string' && tenant !== '' ? localActivityTenant.run(tenant, () => next(input)) : next(input);
    },
  },
});

/**
 * The tenant of the activity running now: its priority's fairnessKey, or for a local activity the
 * header it was scheduled with; undefined outside an activity.
 */
export function currentActivityTenant(): string | undefined {
  try {
    return Context.current().info.priority?.fairnessKey || localActivityTenant.getStore() || undefined;
  } catch {
    return undefined;
  }
}

/** The tenant of a workflow, as a sink sees it (its priority's fairnessKey, else its search attribute). */
export function workflowTenant(info: WorkflowInfo): string | undefined {
  return info.priority?.fairnessKey || info.typedSearchAttributes.get(TENANT) || undefined;
}
