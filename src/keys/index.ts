// API keys by reference: a run names its key (input.apiKeyRef), the worker resolves the name.
import { fileURLToPath } from 'node:url';

/** The workflow interceptor module that carries a run's key name to its activities (bundle it with the workflows). */
export const API_KEY_REF_INTERCEPTOR_PATH = fileURLToPath(new URL(`../workflows/api-key-ref-interceptor${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

export { createApiKeyRefs, apiKeyRefOf, type ApiKeyRefs } from './activity-interceptor.js';
export { ApiKeyBook, type ApiKeyBookOptions } from './book.js';
export { apiKeyEnvName, envApiKeyResolver } from './env.js';
export { fileApiKeyResolver } from './file.js';
export { ApiKeyResolverError, type ApiKeyResolver } from './resolver.js';
export { apiKeyResolverFromSetting, type ApiKeysSetting } from './setting.js';
export { apiKeyResolverFromEnv, unknownApiKeyRefIssue } from './check.js';
export { API_KEY_REF_HEADER, apiKeyRefIssue, apiKeyRefSchema } from '../shared/api-key-ref.js';
