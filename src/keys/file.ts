// Keys from a JSON file of names to keys, `{ "customer-b": "fc-..." }`, read again at each
// resolution (the key book caches what it reads for a short time), so a key rotated in the
// file, or a name added, applies without restarting the worker. Keep the file readable by the
// worker's user only (chmod 600).
import { readFile } from 'node:fs/promises';
import { ApiKeyResolverError, type ApiKeyResolver } from './resolver.js';

/** Resolves a name from the JSON object in `path`. Errors name the file and the rule, never its content. */
export function fileApiKeyResolver(path: string): ApiKeyResolver {
  const setting = `WEBDATA_API_KEYS=file:${path}`;
  const resolve: ApiKeyResolver = async (ref) => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new ApiKeyResolverError(`${setting}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const keys = parseKeys(text);
    if (keys === undefined) throw new ApiKeyResolverError(`${setting}: must be a JSON object of names to keys, e.g. { "customer-b": "fc-..." }`);
    const key = Object.hasOwn(keys, ref) ? keys[ref] : undefined;
    return typeof key === 'string' && key.trim() !== '' ? key : undefined;
  };
  resolve.hint = (ref) => `${setting}: add "${ref}" to the file`;
  return resolve;
}

/** The object of names to keys, or undefined when the text is not one (the parser's message may quote the text: dropped). */
function parseKeys(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
