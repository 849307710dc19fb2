// A local activity's failure reaches the workflow as the activity's own error (an
// ApplicationFailure or a TimeoutFailure), where an activity on the task queue fails with an
// ActivityFailure around it. The stages read a start's failure the one way (report-notes.ts,
// lost-job.ts, api-key-ref.ts), so the local proxies wrap it the same way.
import { ActivityFailure, isCancellation, TemporalFailure, type LocalActivityOptions } from '@temporalio/workflow';

type LocalActivityCall = ((...args: unknown[]) => Promise<unknown>) & {
  executeWithOptions(options: LocalActivityOptions, args: unknown[]): Promise<unknown>;
};

/** The proxy, each call's failure an ActivityFailure whose cause is the activity's error. */
export function withActivityFailures<T extends object>(activities: T): T {
  return new Proxy(activities, {
    get(target, name) {
      const plain = Reflect.get(target, name) as LocalActivityCall | undefined;
      if (typeof plain !== 'function') return plain;
      const wrap = (err: unknown): never => {
        if (err instanceof ActivityFailure || isCancellation(err) || !(err instanceof TemporalFailure)) throw err;
        throw new ActivityFailure(err.message, String(name), undefined, 'NON_RETRYABLE_FAILURE', undefined, err);
      };
      const executeWithOptions = (options: LocalActivityOptions, args: unknown[]) => plain.executeWithOptions(options, args).catch(wrap);
      return Object.assign((...args: unknown[]) => executeWithOptions({}, args), { executeWithOptions });
    },
  });
}
