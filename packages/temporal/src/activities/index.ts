// createActivities: every endpoint as an activity, plus the collectors and link-list helpers.
import { createCollectors } from './collect.js';
import type { ActivityDeps } from './deps.js';
import { createEndpointActivities } from './endpoints.js';
import { createJobActivities } from './jobs.js';
import { createLinkActivities } from './links.js';

export function createActivities(deps: ActivityDeps) {
  const { collect: _collect, ...collectors } = createCollectors(deps);
  return {
    ...createEndpointActivities(deps),
    ...createJobActivities(deps),
    ...createLinkActivities(deps),
    ...collectors,
  };
}

export type WebDataActivities = ReturnType<typeof createActivities>;
export type { ActivityDeps } from './deps.js';
export { toActivityFailure, mapFailures, isRetryableKind } from './failures.js';
export * from './retry-policies.js';
export type * from './types.js';
