// createActivities: every endpoint as an activity, plus the collectors and link-list helpers.
import { createPublicFetch } from 'webdata-client';
import { createAgentActivities } from './agents.js';
import { createBatchAppendActivities } from './batch-append.js';
import { createChangeActivities } from './changes.js';
import { createCollectors } from './collect.js';
import type { ActivityDeps } from './deps.js';
import { createEndpointActivities } from './endpoints.js';
import { createJobActivities } from './jobs.js';
import { createLinkActivities } from './links.js';
import { createLostJobActivities } from './lost-job.js';
import { createMonitorActivities } from './monitor.js';
import { createRobotsActivities, RobotsBook } from './robots.js';
import { createTenantBudgetActivities } from './tenant-budget.js';
import { createTeamGovernorActivities } from './team-governor.js';

export function createActivities(given: ActivityDeps) {
  // The worker's own requests go to public addresses only, checked after DNS and each redirect.
  const outward = createPublicFetch({ allowPrivateAddresses: given.allowPrivateAddresses }).fetch;
  const deps: ActivityDeps = { ...given, robotsFetch: given.robotsFetch ?? outward, webhookFetch: given.webhookFetch ?? outward };
  // One robots.txt cache for the filter and the collectors: fetched once per origin per run.
  const robots = new RobotsBook(deps);
  const { collect: _collect, ...collectors } = createCollectors(deps, robots);
  return {
    ...createEndpointActivities(deps),
    ...createAgentActivities(deps),
    ...createJobActivities(deps),
    ...createBatchAppendActivities(deps),
    ...createLinkActivities(deps),
    ...createLostJobActivities(deps),
    ...createRobotsActivities(deps, robots),
    ...createChangeActivities(deps),
    ...createTenantBudgetActivities(),
    ...createTeamGovernorActivities(deps),
    ...createMonitorActivities(deps),
    ...collectors,
  };
}

export type WebDataActivities = ReturnType<typeof createActivities>;
export type { ActivityDeps } from './deps.js';
export { IdempotencyMemory, type IdempotencySupport } from './idempotency.js';
export { urlKey, sameUrl } from 'webdata-contract';
export { DEFAULT_ROBOTS_USER_AGENT } from './robots.js';
export { contentHash, seriesRuns, seriesStoreRun, REMOVED_LIST, CHANGES_SIGNATURE_HEADER, type SeriesRunEntry, type ChangeKind, type ContentCopy } from './changes.js';
export { recordMonitorCheck, monitorSeriesName, monitorCheckRunId, type MonitorCheckRecord, type MonitorCheckRecordInput } from './monitor-series.js';
export { toActivityFailure, mapFailures, isRetryableKind } from './failures.js';
export * from '../shared/retry-policies.js';
export type * from './types.js';
export type { AppendBatchInput, AppendBatchResult } from './batch-append.js';
export type { LostJobInventory } from './lost-job.js';
export type { AgentJobResult, ParseActivityResult } from './agents.js';
