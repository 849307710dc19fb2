// A run's key name in the workflow: whether the interceptor that carries it to the activities
// (api-key-ref-interceptor.ts) is in this bundle, and the run's failure when the worker cannot
// use the name. A run that names a key but whose bundle lacks the interceptor would send its
// activities no name, and they would bill the worker's default team: it fails at its start instead.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

// On the workflow's global object, not in a module variable: a bundle may hold two copies of this
// module (the interceptor module resolved from another build of the package than the workflows).
const CARRIED = Symbol.for('webdata-temporal.apiKeyRefCarried');

/** Called by the interceptor for each run it is installed for (before the run's code). */
export function markApiKeyRefCarried(): void {
  (globalThis as Record<symbol, unknown>)[CARRIED] = true;
}

/** Fails the run (non-retryable, type api_key_ref) when it names a key the bundle cannot carry. */
export function requireApiKeyRefCarrier(apiKeyRef: string | undefined): void {
  if (apiKeyRef === undefined || (globalThis as Record<symbol, unknown>)[CARRIED] === true) return;
  throw ApplicationFailure.create({
    type: 'api_key_ref',
    nonRetryable: true,
    message: 'apiKeyRef: this worker\'s workflow bundle cannot carry a key name to the activities (bundle it with API_KEY_REF_INTERCEPTOR_PATH among its interceptor modules)',
  });
}

/**
 * The run's own failure when an activity failed because the worker cannot use the run's key name
 * (type api_key_ref: unknown name, no resolver): every further activity would fail the same way,
 * so the run ends with that one line instead of failing stage after stage.
 */
export function apiKeyRefFailure(err: unknown): ApplicationFailure | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure) || err.cause.type !== 'api_key_ref') return undefined;
  return ApplicationFailure.create({ type: 'api_key_ref', nonRetryable: true, message: err.cause.message });
}
