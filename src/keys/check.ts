// A client that has the worker's key setting checks a run's key name before starting it: an
// unknown name is refused in the same line the worker would fail the run with, before any run.
import type { ApiKeyResolver } from './resolver.js';
import { parseApiKeysSetting, apiKeyResolverFromSetting, API_KEYS_SETTING_RULE } from './setting.js';

/** Why `ref` cannot be used (`no key named "acme" (...)`), or undefined when the resolver knows it. */
export async function unknownApiKeyRefIssue(ref: string, resolve: ApiKeyResolver): Promise<string | undefined> {
  const key = await resolve(ref);
  if (typeof key === 'string' && key.trim() !== '') return undefined;
  return `no key named "${ref}" (${resolve.hint?.(ref) ?? 'the apiKeys resolver knows no such name'})`;
}

/** The resolver of WEBDATA_API_KEYS in `env` (undefined when unset); a malformed value throws its rule. */
export function apiKeyResolverFromEnv(env: NodeJS.ProcessEnv = process.env): ApiKeyResolver | undefined {
  const value = env.WEBDATA_API_KEYS;
  if (value === undefined || value === '') return undefined;
  const setting = parseApiKeysSetting(value);
  if (!setting) throw new Error(API_KEYS_SETTING_RULE);
  return apiKeyResolverFromSetting(setting, env);
}
