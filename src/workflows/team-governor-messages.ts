// Messages of the fleet governor (one workflow per API team), shared by the workflow, the
// activities that acquire, renew and release a job's share, and the client.
// Plain definitions (no @temporalio/workflow): the client reads the governor with them.
import { query, update } from './message-definitions.js';
import type { AcquireRequest, Grant, GovernorStatus } from './team-governor-rules.js';

export const GOVERNOR_WORKFLOW_TYPE = 'webdataTeamGovernor';

/** One governor per team (a hash of the API key, never the key) and namespace: its workflow id. */
export function governorWorkflowId(team: string): string {
  return `webdata-team-${team}`;
}

/** Asks for a share; waits up to `waitMs` in the governor's queue, then answers (granted or the place in line). */
export const acquireShareUpdate = update<Grant, [AcquireRequest & { waitMs?: number }]>('acquireShare');
/** Keeps a lease while its job runs; false: it had expired and was taken back in. */
export const renewShareUpdate = update<boolean, [{ key: string; tenant: string; share: number }]>('renewShare');
/** Gives a lease (or a place in line) back: the job ended, or its run was cancelled. */
export const releaseShareUpdate = update<void, [{ key: string }]>('releaseShare');
/** A 429's Retry-After: no grant before `until` (epoch ms) for the whole team. */
export const pauseTeamUpdate = update<number, [{ until: number }]>('pauseTeam');
export const governorStatusQuery = query<GovernorStatus>('governorStatus');
