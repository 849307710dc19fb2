// ApiKeyBook: the worker's clients per key name. A name is resolved once per time to live
// (default 30 s: a rotated key applies within it) and its client kept while its key is the
// same; every client of the book shares the default client's connection pool, so a thousand
// names do not open a thousand pools, and a dropped client has nothing to close.
import type { WebDataClient } from 'webdata-client';
import { resolverFailed, unknownApiKeyRef } from './failures.js';
import type { ApiKeyResolver } from './resolver.js';

export interface ApiKeyBookOptions {
  /** The worker's client (WEBDATA_API_KEY): its service, options and pool serve every name. */
  client: WebDataClient;
  /** Names to keys; unset: every name is unknown (a run that names a key fails, never billed to the default team). */
  resolve?: ApiKeyResolver;
  /** How long a resolved key is used before the resolver is asked again; default 30 s. */
  ttlMs?: number;
  /** Names kept at most (the oldest resolved is dropped first); default 10,000. */
  maxNames?: number;
}

interface Entry {
  key: string;
  client: WebDataClient;
  until: number;
}

export class ApiKeyBook {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<WebDataClient>>();
  private readonly ttlMs: number;
  private readonly maxNames: number;

  constructor(private readonly options: ApiKeyBookOptions) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxNames = options.maxNames ?? 10_000;
  }

  /** The client of the key named `ref`; throws the run's failure (an ApplicationFailure) when it cannot. */
  clientFor(ref: string): Promise<WebDataClient> {
    const entry = this.entries.get(ref);
    if (entry && entry.until > Date.now()) return Promise.resolve(entry.client);
    // One resolution per name at a time: activities of many runs may start together.
    let resolving = this.pending.get(ref);
    if (!resolving) {
      resolving = this.resolve(ref).finally(() => this.pending.delete(ref));
      this.pending.set(ref, resolving);
    }
    return resolving;
  }

  private async resolve(ref: string): Promise<WebDataClient> {
    const { resolve } = this.options;
    if (!resolve) throw unknownApiKeyRef(ref, 'this worker resolves no key names: set WEBDATA_API_KEYS or pass apiKeys');
    let key: string | undefined;
    try {
      key = await resolve(ref);
    } catch (err) {
      throw resolverFailed(ref, err);
    }
    if (typeof key !== 'string' || key.trim() === '') {
      this.entries.delete(ref);
      throw unknownApiKeyRef(ref, resolve.hint?.(ref) ?? 'the worker\'s apiKeys resolver knows no such name');
    }
    const kept = this.entries.get(ref);
    const client = kept && kept.key === key ? kept.client : this.options.client.withApiKey(key);
    this.entries.delete(ref);
    this.entries.set(ref, { key, client, until: Date.now() + this.ttlMs });
    // A Map keeps insertion order: the first entry is the one resolved longest ago.
    if (this.entries.size > this.maxNames) this.entries.delete(this.entries.keys().next().value as string);
    return client;
  }
}
