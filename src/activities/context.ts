// What activities need from Temporal's activity context: the cancellation signal, heartbeats,
// the last heartbeat of a previous attempt, and ids. Wrapped so the API calls stay plain.
import { Context } from '@temporalio/activity';
import type { RetryPolicy } from '@temporalio/common';

export interface ActivityScope {
  signal: AbortSignal;
  heartbeat(details?: unknown): void;
  lastHeartbeat<T>(): T | undefined;
  workflowId(): string;
  /** When the first attempt of this activity was scheduled (ms since epoch). */
  firstScheduledMs(): number;
  /** This attempt's number, 1 for the first. */
  attempt(): number;
  log: { info(message: string, meta?: Record<string, unknown>): void; warn(message: string, meta?: Record<string, unknown>): void };
}

export function currentScope(): ActivityScope {
  const ctx = Context.current();
  return {
    signal: ctx.cancellationSignal,
    heartbeat: (details) => ctx.heartbeat(details),
    lastHeartbeat: <T>() => ctx.info.heartbeatDetails as T | undefined,
    workflowId: () => ctx.info.workflowExecution?.workflowId ?? ctx.info.activityId,
    firstScheduledMs: () => ctx.info.scheduledTimestampMs,
    attempt: () => ctx.info.attempt,
    log: ctx.log,
  };
}

/**
 * This attempt's number and the retry policy the server reports for it, or undefined outside an
 * activity (the failure mapping also runs in plain code and tests).
 */
export function currentRetry(): { attempt: number; policy?: RetryPolicy } | undefined {
  let info: Context['info'];
  try {
    info = Context.current().info;
  } catch {
    return undefined;
  }
  return { attempt: info.attempt, policy: info.retryPolicy };
}

/**
 * Heartbeats every `everyMs` while `work` runs, so a long call (support ask, interact code,
 * a large map) is seen alive and learns of cancellation, which aborts its HTTP request.
 */
export async function whileHeartbeating<T>(scope: ActivityScope, work: (signal: AbortSignal) => Promise<T>, everyMs = 5_000): Promise<T> {
  const timer = setInterval(() => scope.heartbeat(), everyMs);
  try {
    return await work(scope.signal);
  } finally {
    clearInterval(timer);
  }
}
