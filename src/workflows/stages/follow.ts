// The job's follower, beside the wait: one activity call at a time stores the job's pages as the
// service reports them (activities/collect.ts followJob), each call bounded in time, so history
// grows with the job's duration, never with its pages. Its cursor lives in the active job, so
// it travels through continue-as-new.
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { CollectInput, CollectResult, JobSummary } from '../../activities/types.js';
import { followers } from '../activities.js';
import type { ActiveJob } from '../state.js';

export interface Follower {
  /** The job's end as the follower saw it, once every page is stored. */
  ended(): JobSummary | undefined;
  /** Every page stored (the job ended), or undefined: collect at the end (`job.follow.atEnd`). */
  result: Promise<CollectResult | undefined>;
  /** Stops following (continue-as-new): the current call returns its cursor into `job.follow`. */
  stop(): Promise<void>;
  /** The follower ended (stored everything, handed back, or failed). */
  done(): boolean;
  /** The follower met a 404 for the job: it stored what it read and stopped. */
  lost(): boolean;
}

export function startFollower(job: ActiveJob, input: Omit<CollectInput, 'kind' | 'cursor'>): Follower {
  const scope = new CancellationScope();
  let ended: JobSummary | undefined;
  let stopping = false;
  let lost = false;
  const result = scope.run(async () => {
    for (;;) {
      const cursor = job.follow?.cursor;
      const out = await followers.followJob.executeWithOptions(
        { summary: `follow ${job.kind} ${job.jobId}${cursor ? ` from ${cursor.skip}` : ''}` },
        [{ ...input, kind: job.kind, ...(cursor ? { cursor } : {}) }],
      );
      if (out.kind === 'done') {
        ended = out.summary;
        return out.collected;
      }
      if (out.kind === 'lost') {
        // The wait's next status read meets the same 404 and recovers the job; the follower's
        // read was the later one, so its bill is the job's last known.
        job.follow = { cursor: out.cursor };
        job.creditsSeen = Math.max(job.creditsSeen ?? 0, out.cursor.creditsUsed ?? 0);
        lost = true;
        return undefined;
      }
      job.follow = { cursor: out.cursor, ...(out.kind === 'at-end' ? { atEnd: out.reason } : {}) };
      if (out.kind === 'at-end' || stopping || scope.consideredCancelled) return undefined;
    }
  });
  // Its failure is seen where the result is awaited; a cancelled run awaits nothing.
  let settled = false;
  result.then(() => { settled = true; }, () => { settled = true; });
  return {
    done: () => settled,
    lost: () => lost,
    ended: () => ended,
    result,
    async stop() {
      stopping = true;
      scope.cancel();
      try {
        await result;
      } catch (err) {
        if (!isCancellation(err)) throw err;
      }
    },
  };
}
