// ApiKeyResolver: turns a run's key name (apiKeyRef) into an API key, in the worker. Built in:
// the environment (env.ts) and a file (file.ts); a deployment may pass its own (a secret manager).

/**
 * The key named `ref`, or undefined when there is none (the run then fails with one line, the
 * resolver's `hint`). Called again after the key book's time to live (ApiKeyBookOptions.ttlMs),
 * so a rotated key applies. Its errors' messages are shown in the activity's failure: they must
 * not contain a key.
 */
export type ApiKeyResolver = ((ref: string) => Promise<string | undefined> | string | undefined) & {
  /** What the operator should do about an unknown name, e.g. `WEBDATA_API_KEYS=env: set WEBDATA_API_KEY_ACME`. */
  hint?: (ref: string) => string;
};

/** A resolver's failure with a message made to be shown (never a key). */
export class ApiKeyResolverError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiKeyResolverError';
  }
}
