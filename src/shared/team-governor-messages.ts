// Messages of the fleet governor (one workflow per API team), shared by the workflow, the
// activities that acquire, renew and release a job's share, and the client.
// Plain definitions (no @temporalio/workflow): the client reads the governor with them.
import { query, signal, update } from './message-definitions.js';
import type { AcquireRequest, Grant, GovernorStatus } from './team-governor-rules.js';

export const GOVERNOR_WORKFLOW_TYPE = 'webdataTeamGovernor';

/** One governor per team (a hash of the API key, never the key) and namespace: its workflow id. */
export function governorWorkflowId(team: string): string {
  return `webdata-team-${team}`;
}

/**
 * Asks for a share (joins the line, or says "still here"); answers at once: granted, or the place
 * in line, and tells nothing later. Runs from before asks by signal (askShareSignal) and tools.
 * It never waits inside the governor: the server admits only a few updates in flight per
 * workflow (10 by default), and a fleet's waiting jobs are many more.
 */
export const acquireShareUpdate = update<Grant, [AcquireRequest]>('acquireShare');
/** A key's answer now (granted or its place in line), for a waiting job's polls (runs from before asks by signal): no history written. */
export const shareQuery = query<Grant, [{ key: string }]>('shareGrant');
/** Keeps a lease while its job runs; false: it had expired and was taken back in. */
export const renewShareUpdate = update<boolean, [{ key: string; tenant: string; share: number }]>('renewShare');
/** Gives a lease (or a place in line) back: the job ended, or its run was cancelled. */
export const releaseShareUpdate = update<void, [{ key: string }]>('releaseShare');
/** A 429's Retry-After: no grant before `until` (epoch ms) for the whole team. */
export const pauseTeamUpdate = update<number, [{ until: number }]>('pauseTeam');
export const governorStatusQuery = query<GovernorStatus>('governorStatus');

/** What the governor tells a waiting run (request.notify) when it grants that run's share. */
export interface ShareNotice {
  key: string;
  share: number;
  expiresAt: number;
}
/**
 * A run's ask (signal-with-start): joins the line, or says "still here". Signals, unlike updates,
 * have no cap in flight and many are handled in one workflow task: a fleet's asks arrive
 * together. The answer comes as shareGrantedSignal to `notify`, at once when the share is free.
 */
export const askShareSignal = signal<[AcquireRequest & { notify: string }]>('webdataAskShare');
/** Sent by the governor to the run: the share of lease `key` is granted. */
export const shareGrantedSignal = signal<[ShareNotice]>('webdataShareGranted');
