// The fleet governor's client side (workflows/team-governor.ts): one governor per API team,
// started on first use by whichever worker asks first. Called by the worker's activities and by
// tools that read the governor's state.
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { acquireShareUpdate, askShareSignal, GOVERNOR_WORKFLOW_TYPE, governorStatusQuery, governorWorkflowId, pauseTeamUpdate, releaseShareUpdate, renewShareUpdate, shareQuery } from '../shared/team-governor-messages.js';
import type { AcquireRequest, Grant, GovernorStatus } from '../shared/team-governor-rules.js';

export type { Grant, GovernorStatus } from '../shared/team-governor-rules.js';

export interface GovernorTarget {
  client: Client;
  /** WebDataClient.teamId: a hash of the API key. */
  team: string;
  /** The worker task queue that runs the governor (the worker's own). */
  taskQueue: string;
  /** The team's concurrency, for a governor that does not exist yet. */
  concurrency: number;
}

function governorStart(target: GovernorTarget) {
  return {
    workflowId: governorWorkflowId(target.team),
    taskQueue: target.taskQueue,
    args: [{ team: target.team, concurrency: target.concurrency }] as [{ team: string; concurrency: number }],
    staticSummary: `fair shares of API team ${target.team}`,
  };
}

function governorUpdate<Ret, Arg>(target: GovernorTarget, update: UpdateDefinition<Ret, [Arg]>, arg: Arg): Promise<Ret> {
  const start = new WithStartWorkflowOperation(GOVERNOR_WORKFLOW_TYPE, { ...governorStart(target), workflowIdConflictPolicy: 'USE_EXISTING' });
  return target.client.workflow.executeUpdateWithStart(update, { args: [arg], startWorkflowOperation: start });
}

/**
 * Joins the line (or says "still here") without waiting for an answer: the governor signals
 * `req.notify` (shareGrantedSignal) when it grants the share, at once if it is free.
 */
export async function askShare(target: GovernorTarget, req: Omit<AcquireRequest, 'concurrency'> & { notify: string }): Promise<void> {
  await target.client.workflow.signalWithStart(GOVERNOR_WORKFLOW_TYPE, { ...governorStart(target), signal: askShareSignal, signalArgs: [{ ...req, concurrency: target.concurrency }] });
}

/** Joins the line (or says "still here"): granted, or the place in line. */
export function acquireShare(target: GovernorTarget, req: Omit<AcquireRequest, 'concurrency'>): Promise<Grant> {
  return governorUpdate(target, acquireShareUpdate, { ...req, concurrency: target.concurrency });
}

/** A key's answer now, read without writing history (the governor exists: the key asked first). */
export function shareGrant(target: GovernorTarget, key: string): Promise<Grant> {
  return target.client.workflow.getHandle(governorWorkflowId(target.team)).query(shareQuery, { key });
}

export function renewShare(target: GovernorTarget, lease: { key: string; tenant: string; share: number }): Promise<boolean> {
  return governorUpdate(target, renewShareUpdate, lease);
}

export function releaseShare(target: GovernorTarget, key: string): Promise<void> {
  return governorUpdate(target, releaseShareUpdate, { key });
}

export function pauseTeam(target: GovernorTarget, until: number): Promise<number> {
  return governorUpdate(target, pauseTeamUpdate, { until });
}

/** The governor's leases and line by tenant; null when the team has no governor yet. */
export async function governorStatus(client: Client, team: string): Promise<GovernorStatus | null> {
  try {
    return await client.workflow.getHandle(governorWorkflowId(team)).query(governorStatusQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}
