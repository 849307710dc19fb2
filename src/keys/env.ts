// Keys from the worker's environment (WEBDATA_API_KEY_*): the name `customer-b` reads WEBDATA_API_KEY_CUSTOMER_B.
import type { ApiKeyResolver } from './resolver.js';

/** The variable a name reads: upper-cased, every character but letters and digits as `_`. */
export function apiKeyEnvName(ref: string): string {
  return `WEBDATA_API_KEY_${ref.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** Resolves a name from `env` (read at each call: a key set later applies). */
export function envApiKeyResolver(env: NodeJS.ProcessEnv = process.env): ApiKeyResolver {
  const resolve: ApiKeyResolver = (ref) => {
    const key = env[apiKeyEnvName(ref)];
    return key === undefined || key.trim() === '' ? undefined : key;
  };
  resolve.hint = (ref) => `WEBDATA_API_KEYS=env: set ${apiKeyEnvName(ref)}`;
  return resolve;
}
