// Every activity a run schedules carries the run's Temporal priority, fairnessKey = its tenant, so
// a fairness-enabled task queue interleaves tenants' activities instead of serving the biggest
// backlog first. The server also lets activities inherit it; set explicitly it survives a
// continue-as-new, and a run started without priority still gets its tenant from the search attribute.
import { workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import { TENANT } from '../search-attributes.js';
import { mapActivityCalls } from './activity-calls.js';

/** The run's priority for its activities, or undefined when it names no tenant. */
export function runPriority(): Priority | undefined {
  const info = workflowInfo();
  const tenant = info.priority?.fairnessKey || info.typedSearchAttributes.get(TENANT);
  if (!tenant) return undefined;
  const priorityKey = info.priority?.priorityKey;
  return { fairnessKey: tenant, ...(priorityKey ? { priorityKey } : {}) };
}

/** The proxy, with the run's priority added to each call's options (a call's own options win). */
export function withRunPriority<T extends object>(activities: T): T {
  return mapActivityCalls<T, ActivityOptions>(activities, (_name, execute) => (options, args) => {
    const priority = runPriority();
    return execute(priority ? { priority, ...options } : options, args);
  });
}
