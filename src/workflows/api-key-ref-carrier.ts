// Whether the key-name interceptor (api-key-ref-interceptor.ts) is in this workflow bundle. A run
// that names a key but whose bundle lacks it would send its activities no name, and they would
// bill the worker's default team: the run fails at its start instead (requireApiKeyRefCarrier).
import { ApplicationFailure } from '@temporalio/workflow';

let carried = false;

/** Called by the interceptor for each run it is installed for. */
export function markApiKeyRefCarried(): void {
  carried = true;
}

/** Fails the run (non-retryable, type api_key_ref) when it names a key the bundle cannot carry. */
export function requireApiKeyRefCarrier(apiKeyRef: string | undefined): void {
  if (apiKeyRef === undefined || carried) return;
  throw ApplicationFailure.create({
    type: 'api_key_ref',
    nonRetryable: true,
    message: 'apiKeyRef: this worker\'s workflow bundle cannot carry a key name to the activities (bundle it with API_KEY_REF_INTERCEPTOR_PATH among its interceptor modules)',
  });
}
