// A run's side of its team's fleet governor (input.governor; workflows/team-governor.ts): a job
// waits for a share of the team's concurrency, starts with maxConcurrency = its share, renews it
// while it runs, and gives it back when it ends or its run is cancelled (a share handed over at
// continue-as-new stays held: the next run asks with the same key and gets it back).
import { CancellationScope, condition, setHandler, sleep } from '@temporalio/workflow';
import { asks, reads } from './activities.js';
import type { PipelineRuntime } from './runtime.js';
import { shareGrantedSignal } from '../shared/team-governor-messages.js';
import { DEFAULT_TENANT } from '../shared/tenant.js';

/** Asked for when the job names no maxConcurrency: the governor grants at most the fair share and what is free. */
const WANT_ALL = 10_000;
/**
 * A waiting run asks again this often, well within the governor's NOTIFIED_WAITER_TTL_MS (10 min):
 * the governor answers a repeated ask of a granted share with the notice again.
 */
const REASK_MS = 4 * 60_000;

/** Grants the governor told this run of, by lease key (a workflow module's state is its run's own). */
const notices = new Map<string, number>();
let listening = false;

/**
 * Asks for the share of lease `key` and waits for it in the workflow: a timer and, when the
 * governor grants later, its notice. Cancelled while in line, the run leaves the line.
 */
async function waitForShare(key: string, team: { teamConcurrency?: number }, ask: Parameters<typeof asks.askTeamShare>[0]): Promise<number> {
  if (!listening) {
    setHandler(shareGrantedSignal, ({ key, share }) => void notices.set(key, share));
    listening = true;
  }
  const release = () => reads.releaseTeamShare.executeWithOptions({ summary: `leave the line ${key}` }, [{ ...team, key: ask.key }]);
  try {
    for (;;) {
      await asks.askTeamShare.executeWithOptions({ summary: `team share for ${key} (tenant ${ask.tenant})` }, [ask]);
      if (await condition(() => notices.has(ask.key), REASK_MS)) return notices.get(ask.key) as number;
    }
  } catch (err) {
    // Cancelled (or failed) while in line: leave it; a grant made meanwhile is given back.
    await CancellationScope.nonCancellable(release);
    throw err;
  }
}

export interface Governed {
  teamConcurrency?: number;
  chunkPages: number;
  leaseTtlMs: number;
  /** Absent in runs started before it existed: the governor takes 1. */
  overcommit?: number;
}

/** The run's governor settings, or undefined when its jobs are not governed. */
export function governorOf(pipeline: PipelineRuntime): Governed | undefined {
  return pipeline.state.config.governor;
}

/** The activity input that marks a start as governed (a 429 pauses the team). */
export function governedInput(governor: Governed): { teamConcurrency?: number } {
  return governor.teamConcurrency !== undefined ? { teamConcurrency: governor.teamConcurrency } : {};
}

/**
 * Runs `job` with a share of the team: `key` names the job (the same key after a retry or a
 * continue-as-new finds the same lease). `job` returns whether its run hands the job over
 * (continue-as-new): then the share stays held, renewed by the next run.
 */
export async function withTeamShare<T>(
  pipeline: PipelineRuntime,
  governor: Governed,
  key: string,
  want: number | undefined,
  job: (share: number) => Promise<{ result: T; handedOver: boolean }>,
): Promise<T> {
  const tenant = pipeline.state.config.tenant ?? DEFAULT_TENANT;
  const team = governedInput(governor);
  const fullKey = `${pipeline.workflowId()}/${key}`;
  const ask = { ...team, tenant, key: fullKey, want: want ?? WANT_ALL, ttlMs: governor.leaseTtlMs, ...(governor.overcommit !== undefined ? { overcommit: governor.overcommit } : {}) };
  // The run asks by signal and waits for the governor's notice (a signal), no activity polling the governor.
  const lease = { share: await waitForShare(key, team, { ...ask, notify: pipeline.workflowId() }) };
  const renewal = new CancellationScope();
  const renewing = renewal.run(async () => {
    for (;;) {
      await sleep(Math.floor(governor.leaseTtlMs / 3));
      await reads.renewTeamShare.executeWithOptions({ summary: `renew team share ${key}` }, [{ ...team, key: fullKey, tenant, share: lease.share }]);
    }
  }).catch(() => {
    // Cancelled at the job's end, or a renewal failed for good: then the lease expires and the
    // governor counts it again at the next renewal of a later job; the job itself goes on.
  });
  let handedOver = false;
  try {
    const out = await job(lease.share);
    handedOver = out.handedOver;
    return out.result;
  } finally {
    renewal.cancel();
    await CancellationScope.nonCancellable(async () => {
      await renewing;
      // Given back at the job's end, its failure and its run's cancellation (nonCancellable).
      if (!handedOver) await reads.releaseTeamShare.executeWithOptions({ summary: `release team share ${key}` }, [{ ...team, key: fullKey }]);
    });
  }
}
