// Activity proxies, one per retry group. Workflows import activity *types* only.
import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  cleanupRetryPolicy,
  collectorRetryPolicy,
  interactRetryPolicy,
  jobStartRetryPolicy,
  readRetryPolicy,
  supportRetryPolicy,
} from '../activities/retry-policies.js';

type Activities = ReturnType<typeof createActivities>;

// Quick GETs: a short deadline is also how fast a dead worker is noticed.
export const reads = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: readRetryPolicy });
/** Map and link-list work: can take long on large sites, heartbeats so a dead worker is noticed fast. */
export const lists = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: readRetryPolicy,
});
export const starts = proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', retry: jobStartRetryPolicy });
export const collectors = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  // A dead worker is noticed after this long; the retry resumes from the last heartbeat.
  heartbeatTimeout: '10 seconds',
  retry: collectorRetryPolicy,
});
export const browser = proxyActivities<Activities>({
  startToCloseTimeout: '6 minutes',
  heartbeatTimeout: '15 seconds',
  retry: interactRetryPolicy,
});
export const cleanup = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: cleanupRetryPolicy });
export const support = proxyActivities<Activities>({ startToCloseTimeout: '90 seconds', retry: supportRetryPolicy });
