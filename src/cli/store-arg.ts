// The store a command reads (--store, else WEBDATA_STORE, else .data/store), opened with a
// message that names the store and where the setting came from.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createStore, type DocumentStore } from 'webdata-storage';
import { CliError, oneLine, redactSpec, UsageError } from './errors.js';

export interface CliStore {
  store: DocumentStore;
  spec: string;
  /** "store folder /x (from --store)", for every message about it. */
  label: string;
  /** The read failed: one line naming the store and the likely fix. */
  readFailure(err: unknown): CliError;
}

function storeOf(flag: string | undefined): { spec: string; setting: string; label: string } {
  const [spec, setting] = flag !== undefined ? [flag, '--store'] : process.env.WEBDATA_STORE ? [process.env.WEBDATA_STORE, 'WEBDATA_STORE'] : ['.data/store', 'default'];
  const isUrl = /^[a-z][a-z0-9+.-]+:/i.test(spec);
  const where = isUrl ? redactSpec(spec) : `folder ${resolve(spec)}`;
  return { spec, setting, label: `store ${where} (${setting === 'default' ? 'the default; --store or WEBDATA_STORE picks another' : `from ${setting}`})` };
}

export function openCliStore(flag: string | undefined): CliStore {
  const where = storeOf(flag);
  if (!/^[a-z][a-z0-9+.-]+:/i.test(where.spec) && !existsSync(where.spec)) {
    throw new CliError(`no ${where.label}: the folder does not exist; pass the store the worker wrote with --store (\`webdata dev\` prints it)`);
  }
  let store: DocumentStore;
  try {
    store = createStore(where.spec, { setting: where.setting === 'default' ? 'store' : where.setting });
  } catch (err) {
    throw new UsageError(`${oneLine((err as Error).message)}`, { cause: err });
  }
  return {
    store,
    spec: where.spec,
    label: where.label,
    readFailure(err: unknown) {
      const pg = /^postgres/i.test(where.spec) ? ': check the URL and that PostgreSQL is running and reachable (or --store <folder>)' : '';
      return new CliError(`cannot read ${where.label}: ${oneLine((err as Error).message)}${pg}`, 1, { cause: err });
    },
  };
}
