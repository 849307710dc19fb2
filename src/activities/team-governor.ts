// A job's side of its team's fleet governor (workflows/team-governor.ts): ask for a share of the
// team's concurrency (waiting in the governor's line, heartbeating), renew it while the job runs,
// give it back, and tell the governor about a 429 so the whole team waits, not one run.
import { Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { WebDataApiError } from 'webdata-client';
import { acquireShare, askShare, pauseTeam, releaseShare, renewShare, shareGrant, type GovernorTarget } from '../coordination/team-governor.js';
import { checkAcquireRequest } from '../shared/team-governor-rules.js';
import type { ActivityDeps } from './deps.js';
import { mapFailures } from './failures.js';

/** A waiting job of a run from before asks by signal reads its answer this often (a query: no history in the governor). */
const POLL_MS = 1_000;
/** ...and says "still here" this often (an update), well within the governor's WAITER_TTL_MS. */
const REASK_MS = 15_000;
/** A failed ask waits this long at most before the next (doubling from POLL_MS). */
const MAX_ASK_BACKOFF_MS = 15_000;

export interface GovernedInput {
  /** The team's concurrency; unset: read from GET /v2/team/queue-status. */
  teamConcurrency?: number;
}

export interface AcquireShareInput extends GovernedInput {
  tenant: string;
  key: string;
  want: number;
  ttlMs?: number;
  /** governor.overcommit of the run. */
  overcommit?: number;
}

export interface AskShareInput extends AcquireShareInput {
  /** The asking run's workflow id: the governor signals it (shareGranted) when it grants the share. */
  notify: string;
}

export interface TeamLease {
  key: string;
  share: number;
  concurrency: number;
}

export function createTeamGovernorActivities(deps: ActivityDeps) {
  async function concurrencyOf(input: GovernedInput): Promise<number> {
    if (input.teamConcurrency !== undefined) return input.teamConcurrency;
    try {
      const queue = await deps.client.getQueueStatus();
      if (typeof queue.maxConcurrency === 'number' && queue.maxConcurrency >= 1) return queue.maxConcurrency;
    } catch (err) {
      if (!(err instanceof WebDataApiError && err.kind === 'not_available')) throw err;
    }
    throw ApplicationFailure.create({
      message: 'governor.teamConcurrency: required: this service reports no maxConcurrency (GET /v2/team/queue-status)',
      type: 'validation',
      nonRetryable: true,
    });
  }

  async function target(input: GovernedInput): Promise<GovernorTarget> {
    const ctx = Context.current();
    return { client: ctx.client, taskQueue: ctx.info.taskQueue, team: deps.client.teamId, concurrency: await concurrencyOf(input) };
  }

  /** A request the governor refuses (its validator, or the same check before a signal): asking again cannot help. */
  function refused(message: string): never {
    throw ApplicationFailure.create({ message: `governor: ${message}`, type: 'validation', nonRetryable: true });
  }

  return {
    /**
     * Joins the governor's line for the job's share (a signal-with-start, answered by the
     * governor's notice to `notify`): the run waits for the notice in the workflow.
     */
    async askTeamShare(input: AskShareInput): Promise<void> {
      const to = await mapFailures(() => target(input));
      const req = { key: input.key, tenant: input.tenant, want: input.want, ttlMs: input.ttlMs, overcommit: input.overcommit, notify: input.notify };
      try {
        checkAcquireRequest({ ...req, concurrency: to.concurrency });
      } catch (err) {
        refused((err as Error).message);
      }
      await askShare(to, req);
    },
    /**
     * Waits in the governor's line until the job's share is granted (a retried attempt asks with
     * the same key). Runs from before asks by signal; new runs ask with askTeamShare.
     */
    async acquireTeamShare(input: AcquireShareInput): Promise<TeamLease> {
      const ctx = Context.current();
      const to = await mapFailures(() => target(input));
      try {
        let asked = 0;
        let failures = 0;
        for (;;) {
          ctx.heartbeat();
          const ask = Date.now() - asked >= REASK_MS;
          const grant = await (ask ? acquireShare(to, { key: input.key, tenant: input.tenant, want: input.want, ttlMs: input.ttlMs, overcommit: input.overcommit }) : shareGrant(to, input.key)).catch((err: unknown) => {
            if (err instanceof WorkflowUpdateFailedError) refused(err.cause?.message ?? err.message);
            ctx.log.warn('governor: ask failed, asking again', { error: String(err) });
            return undefined;
          });
          if (ask && grant) asked = Date.now();
          if (grant?.granted) return { key: input.key, share: grant.share, concurrency: to.concurrency };
          // A failed ask or read backs off (doubling, with jitter): every waiter asking again each
          // second is what keeps a busy governor from answering anyone.
          failures = grant ? 0 : failures + 1;
          const backoff = failures > 0 ? Math.min(MAX_ASK_BACKOFF_MS, POLL_MS * 2 ** failures) * (0.5 + Math.random() / 2) : POLL_MS;
          // Paused for a 429: no point asking before the pause ends (sleep throws when cancelled).
          const pausedFor = grant && !grant.granted ? grant.pausedUntil - Date.now() : 0;
          await ctx.sleep(Math.max(backoff, Math.min(pausedFor, REASK_MS)));
        }
      } catch (err) {
        // Cancelled (or failed) while in line: leave the line; a grant made meanwhile is given back.
        if (ctx.cancellationSignal.aborted) await releaseShare(to, input.key);
        throw err;
      }
    },
    async renewTeamShare(input: GovernedInput & { key: string; tenant: string; share: number }): Promise<boolean> {
      return renewShare(await mapFailures(() => target(input)), { key: input.key, tenant: input.tenant, share: input.share });
    },
    async releaseTeamShare(input: GovernedInput & { key: string }): Promise<void> {
      await releaseShare(await mapFailures(() => target(input)), input.key);
    },
  };
}

/**
 * Runs a governed job start: a 429 with Retry-After pauses every grant of the team until then
 * (other runs wait in the governor's line instead of meeting the same 429), then fails as before.
 */
export async function reportingRateLimits<T>(deps: ActivityDeps, governed: GovernedInput | undefined, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (governed && err instanceof WebDataApiError && err.kind === 'rate_limited' && err.retryAfterMs !== undefined) {
      const ctx = Context.current();
      const to: GovernorTarget = { client: ctx.client, taskQueue: ctx.info.taskQueue, team: deps.client.teamId, concurrency: governed.teamConcurrency ?? 1 };
      await pauseTeam(to, Date.now() + err.retryAfterMs).catch((e: unknown) => ctx.log.warn('governor: could not report a 429', { error: String(e) }));
    }
    throw err;
  }
}
