// WEBDATA_API_KEYS: where the worker (and a client that checks names before starting) finds keys by name.
import { envApiKeyResolver } from './env.js';
import { fileApiKeyResolver } from './file.js';
import type { ApiKeyResolver } from './resolver.js';

/** `env` (WEBDATA_API_KEY_<NAME>) or `file:/path` (a JSON object of names to keys). */
export type ApiKeysSetting = { kind: 'env' } | { kind: 'file'; path: string };

export const API_KEYS_SETTING_RULE = 'WEBDATA_API_KEYS: must be env or file:/absolute/path.json';

/** The setting's value, or undefined when it is not one (then API_KEYS_SETTING_RULE). */
export function parseApiKeysSetting(value: string): ApiKeysSetting | undefined {
  if (value === 'env') return { kind: 'env' };
  const path = /^file:(\/.+)$/.exec(value)?.[1];
  return path === undefined ? undefined : { kind: 'file', path };
}

export function apiKeyResolverFromSetting(setting: ApiKeysSetting | undefined, env: NodeJS.ProcessEnv = process.env): ApiKeyResolver | undefined {
  if (!setting) return undefined;
  return setting.kind === 'env' ? envApiKeyResolver(env) : fileApiKeyResolver(setting.path);
}
