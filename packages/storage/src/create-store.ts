// Picks and configures a store from one setting (e.g. WEBDATA_STORE): a folder path
// for the filesystem store, a postgres:// URL for PostgreSQL (`?schema=name` selects
// the schema).
import { fileURLToPath } from 'node:url';
import { FilesystemStore } from './filesystem-store.js';
import { PostgresStore, redactUrl } from './postgres-store.js';
import type { DocumentStore } from './types.js';

export interface CreateStoreOptions {
  /** Name of the setting the spec came from, for error messages. Default `WEBDATA_STORE`. */
  setting?: string;
}

export function createStore(spec: string, options: CreateStoreOptions = {}): DocumentStore {
  const setting = options.setting ?? 'WEBDATA_STORE';
  const value = typeof spec === 'string' ? spec.trim() : '';
  if (value === '') throw new Error(`${setting} is empty: set it to a folder path (filesystem store) or a postgres:// URL (PostgreSQL store)`);

  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(`${setting} is not a valid PostgreSQL URL (expected postgres://user@host:port/database): ${redactUrl(value)}`);
    }
    if (!url.host && !url.searchParams.has('host')) throw new Error(`${setting} has no host: ${redactUrl(value)}`);
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    try {
      return new PostgresStore({ connectionString: url.toString(), schema });
    } catch (err) {
      throw new Error(`${setting}: ${(err as Error).message}`, { cause: err });
    }
  }
  if (scheme === 'file') return new FilesystemStore({ root: fileURLToPath(value) });
  // One letter before ':' is a Windows drive, anything longer is a URL of another kind.
  if (scheme !== undefined && scheme.length > 1) {
    throw new Error(`${setting} uses unsupported scheme "${scheme}:": set it to a folder path or a postgres:// URL`);
  }
  return new FilesystemStore({ root: value });
}
