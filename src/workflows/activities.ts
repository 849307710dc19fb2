// Activity proxies, one per retry group. Workflows import activity *types* only.
import { ActivityCancellationType, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  agentStartRetryPolicy,
  cleanupRetryPolicy,
  collectorRetryPolicy,
  interactRetryPolicy,
  jobStartRetryPolicy,
  readRetryPolicy,
  supportRetryPolicy,
} from '../shared/retry-policies.js';
import { withActivityFailures } from './local-activity-failures.js';
import { withRunPriority } from './run-priority.js';

type Activities = ReturnType<typeof createActivities>;

// Quick GETs: a short deadline is also how fast a dead worker is noticed.
export const reads = withRunPriority(proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: readRetryPolicy }));
/** Map and link-list work: can take long on large sites, heartbeats so a dead worker is noticed fast. */
export const lists = withRunPriority(proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: readRetryPolicy,
}));
/**
 * Job starts: one quick POST with an idempotency key (the job runs on the service), run as local
 * activities. The start runs in the workflow task that decides it and the follower is scheduled
 * in that same task: no task-queue round trip, no activity events and one workflow task less per
 * start. A start run twice (the worker died before the task completed) names the same key, so the
 * service answers with the same job. Not counted by the task queue's activity rate
 * (maxTaskQueueActivitiesPerSecond): a 429 from the service is retried like any other failure.
 */
const localStarts = withActivityFailures(proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: jobStartRetryPolicy }));
/** Job starts as activities on the task queue: how runs recorded before LOCAL_JOB_STARTS started their jobs. */
const scheduledStarts = withRunPriority(proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: jobStartRetryPolicy }));
export const LOCAL_JOB_STARTS = 'local-job-starts';

/** The run's job starts: local activities, unless its history started its jobs on the task queue. */
export function starts(): typeof scheduledStarts {
  return patched(LOCAL_JOB_STARTS) ? localStarts : scheduledStarts;
}
/** Agent starts: no idempotency key on that route, so only retries that cannot start a second job. */
export const agentStarts = withRunPriority(proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: agentStartRetryPolicy }));
export const collectors = withRunPriority(proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  // A dead worker is noticed after this long; the retry resumes from the last heartbeat.
  heartbeatTimeout: '10 seconds',
  retry: collectorRetryPolicy,
}));
/**
 * A job's follower (see activities/collect.ts followJob). Cancelled at continue-as-new, it
 * returns its cursor instead of failing; waiting for that answer carries the cursor on.
 */
export const followers = withRunPriority(proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  retry: collectorRetryPolicy,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
}));
export const browser = withRunPriority(proxyActivities<Activities>({
  startToCloseTimeout: '6 minutes',
  heartbeatTimeout: '15 seconds',
  retry: interactRetryPolicy,
}));
export const cleanup = withRunPriority(proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: cleanupRetryPolicy }));
export const support = withRunPriority(proxyActivities<Activities>({
  startToCloseTimeout: '90 seconds',
  heartbeatTimeout: '15 seconds',
  retry: supportRetryPolicy,
}));
/**
 * Asking the team governor for a share: one quick signal-with-start, retried for as long as it
 * takes (a run in line has nothing better to do than ask again).
 */
const { maximumAttempts: _readAttempts, ...untilAnswered } = readRetryPolicy;
export const asks = withRunPriority(proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: untilAnswered }));
