// Default retry policies per activity group. Plain data (the contract's kinds only) so workflows
// can use them. Non-retryable error kinds are marked on the failure itself (see failures.ts);
// the policies name them too so a policy is safe even for failures raised outside our mapping.
import type { RetryPolicy } from '@temporalio/common';
import { NON_RETRYABLE_ERROR_KINDS, type ErrorKind } from 'webdata-contract/rules';

export const NON_RETRYABLE_KINDS: string[] = NON_RETRYABLE_ERROR_KINDS;

/** GETs and cheap reads: retry quickly and for a while. */
export const readRetryPolicy: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 12,
  nonRetryableErrorTypes: NON_RETRYABLE_KINDS,
};

/** Job starts: safe to retry because they carry an idempotency key and recover lost responses. */
export const jobStartRetryPolicy: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 8,
  nonRetryableErrorTypes: NON_RETRYABLE_KINDS,
};

/** Collectors resume from their heartbeat, so every retry continues where the last stopped. */
export const collectorRetryPolicy: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 20,
  nonRetryableErrorTypes: NON_RETRYABLE_KINDS,
};

/** Interact code runs spend browser minutes: retry only infrastructure failures, briefly. */
export const interactRetryPolicy: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '20 seconds',
  maximumAttempts: 3,
  nonRetryableErrorTypes: NON_RETRYABLE_KINDS,
};

/** Cleanup (stop a session, cancel a job) must get through: many attempts. */
export const cleanupRetryPolicy: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '20 seconds',
  maximumAttempts: 30,
  nonRetryableErrorTypes: ['validation', 'unauthorized', 'forbidden', 'not_available'] satisfies ErrorKind[],
};

/** Support answers take 15-60 s; one retry on a transient failure is plenty. */
export const supportRetryPolicy: RetryPolicy = {
  initialInterval: '5 seconds',
  maximumAttempts: 2,
  nonRetryableErrorTypes: NON_RETRYABLE_KINDS,
};

/**
 * Agent starts carry no idempotency key (the route takes none): a retry after a lost answer
 * could start a second job, spending credits the budget never saw. So only answers that prove
 * nothing started are retried (429, 5xx), briefly; a timeout or a network failure is not.
 */
export const agentStartRetryPolicy: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '20 seconds',
  maximumAttempts: 3,
  nonRetryableErrorTypes: [...NON_RETRYABLE_KINDS, ...(['timeout', 'network'] satisfies ErrorKind[])],
};

/** One file's parse: transient failures (429, 5xx, network) are retried this many times in all by default. */
export const DEFAULT_PARSE_ATTEMPTS = 4;

/** A file's parse upload: retried on transient failures; a refused file (4xx) fails at once. */
export function parseRetryPolicy(maximumAttempts = DEFAULT_PARSE_ATTEMPTS): RetryPolicy {
  return {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts,
    nonRetryableErrorTypes: NON_RETRYABLE_KINDS,
  };
}
