// A local activity's failure reaches the workflow as the activity's own error (an
// ApplicationFailure or a TimeoutFailure), where an activity on the task queue fails with an
// ActivityFailure around it. The stages read a start's failure the one way (report-notes.ts,
// lost-job.ts, api-key-ref.ts), so the local proxies wrap it the same way.
import { ActivityFailure, isCancellation, TemporalFailure, type LocalActivityOptions } from '@temporalio/workflow';
import { mapActivityCalls } from './activity-calls.js';

/** The proxy, each call's failure an ActivityFailure whose cause is the activity's error. */
export function withActivityFailures<T extends object>(activities: T): T {
  return mapActivityCalls<T, LocalActivityOptions>(activities, (name, execute) => {
    const wrap = (err: unknown): never => {
      if (err instanceof ActivityFailure || isCancellation(err) || !(err instanceof TemporalFailure)) throw err;
      throw new ActivityFailure(err.message, name, undefined, 'NON_RETRYABLE_FAILURE', undefined, err);
    };
    return (options, args) => execute(options, args).catch(wrap);
  });
}
