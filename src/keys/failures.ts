// The failures of a run whose key name cannot be used: one line naming the field and what to
// do, never a key. An unknown name is final (type api_key_ref: retrying cannot find it); a
// resolver that failed (a file being replaced, a secret store down) is retried.
import { ApplicationFailure } from '@temporalio/common';
import { ApiKeyResolverError } from './resolver.js';

/** `apiKeyRef: no key named "acme" (WEBDATA_API_KEYS=env: set WEBDATA_API_KEY_ACME)`. */
export function unknownApiKeyRef(ref: string, hint: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'api_key_ref', nonRetryable: true, message: `apiKeyRef: no key named "${ref}" (${hint})` });
}

export function invalidApiKeyRefHeader(issue: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'api_key_ref', nonRetryable: true, message: `apiKeyRef: ${issue}` });
}

/** A resolver's own error: our resolvers' messages are made to be shown; another's keeps its message with any bearer token cut. */
export function resolverFailed(ref: string, err: unknown): ApplicationFailure {
  const reason = err instanceof ApiKeyResolverError ? err.message : String((err as Error)?.message ?? err).replace(/(Bearer\s+)\S+/gi, '$1[REDACTED]');
  return ApplicationFailure.create({ type: 'api_key_resolver', nonRetryable: false, message: `apiKeyRef: could not resolve "${ref}": ${reason.split('\n')[0]}` });
}
