// The store side of `webdata doctor`: the worker can write where WEBDATA_STORE points. A folder:
// create it, write, read back and remove a probe file. PostgreSQL: connect, find the tables, and
// write in a transaction that is rolled back (nothing stays behind either way).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { redactSpec } from '../errors.js';
import { causeChain } from '../errors.js';
import type { CheckResult } from './check.js';

const NAME = 'store';
const DEFAULT_STORE = '.data/store';
const TABLES = ['runs', 'documents', 'failures', 'links'];
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export async function checkStore(env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const spec = env.WEBDATA_STORE?.trim() || DEFAULT_STORE;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(spec)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return checkPostgres(spec);
  if (scheme !== undefined && scheme.length > 1 && scheme !== 'file') {
    return { name: NAME, status: 'fail', detail: `WEBDATA_STORE uses the unsupported scheme "${scheme}:".`, fix: 'set it to a folder path or a postgres:// URL' };
  }
  return checkFolder(scheme === 'file' ? new URL(spec).pathname : spec);
}

async function checkFolder(folder: string): Promise<CheckResult> {
  const root = resolve(folder);
  const probe = join(root, `.webdata-doctor-${process.pid}-${Date.now()}`);
  try {
    await mkdir(root, { recursive: true });
    await writeFile(probe, 'probe\n');
    if ((await readFile(probe, 'utf8')) !== 'probe\n') throw new Error('the probe file read back differs from what was written');
    await rm(probe);
  } catch (err) {
    await rm(probe, { force: true }).catch(() => undefined);
    return { name: NAME, status: 'fail', detail: `folder ${root} is not writable: ${causeChain(err)}.`, fix: 'give the worker\'s user write access to it, or set WEBDATA_STORE to a folder it can write (shared by every worker and by webdata export)' };
  }
  return { name: NAME, status: 'ok', detail: `folder ${root} is writable (probe file created, written and removed)` };
}

function loadPg(): typeof pg | undefined {
  try {
    return createRequire(import.meta.url)('pg') as typeof pg;
  } catch {
    return undefined;
  }
}

async function checkPostgres(spec: string): Promise<CheckResult> {
  const shown = redactSpec(spec);
  const pgModule = loadPg();
  if (!pgModule) return { name: NAME, status: 'fail', detail: `${shown}: the PostgreSQL store needs the package "pg", which is not installed.`, fix: 'npm install pg' };
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    return { name: NAME, status: 'fail', detail: `WEBDATA_STORE is not a valid PostgreSQL URL: ${shown}.`, fix: 'set it to postgres://user@host:port/database' };
  }
  const schema = url.searchParams.get('schema') ?? 'webdata';
  if (!SCHEMA_NAME.test(schema)) return { name: NAME, status: 'fail', detail: `${shown}: schema "${schema}" is not a plain identifier.`, fix: 'name the schema with letters, digits and _' };
  url.searchParams.delete('schema');
  const client = new pgModule.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (err) {
    return { name: NAME, status: 'fail', detail: `cannot connect to ${shown}: ${causeChain(err)}.`, fix: 'check WEBDATA_STORE (host, port, user, password, database) and that PostgreSQL accepts connections from here' };
  }
  try {
    const found = await client.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema]);
    const present = new Set(found.rows.map((r) => r.table_name));
    const missing = TABLES.filter((t) => !present.has(t));
    const s = `"${schema}"`;
    await client.query('BEGIN');
    try {
      if (missing.length === 0) {
        await client.query(`INSERT INTO ${s}.runs (run_id) VALUES ($1) ON CONFLICT DO NOTHING`, [`webdata-doctor-probe-${process.pid}`]);
      } else {
        // The store creates its schema and tables on first use: check that this user may.
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
        await client.query(`CREATE TABLE ${s}.webdata_doctor_probe (id int)`);
        await client.query(`INSERT INTO ${s}.webdata_doctor_probe VALUES (1)`);
      }
    } finally {
      await client.query('ROLLBACK');
    }
    const tables = missing.length === 0 ? `its tables in schema ${schema} are there` : `schema ${schema} lacks ${missing.join(', ')}, which the worker creates on first write (this user may)`;
    return { name: NAME, status: 'ok', detail: `${shown}: ${tables}; a test write was rolled back` };
  } catch (err) {
    return { name: NAME, status: 'fail', detail: `${shown} (schema ${schema}) is not writable: ${causeChain(err)}.`, fix: `grant the user CREATE on the database and INSERT, UPDATE, SELECT on schema ${schema}'s tables` };
  } finally {
    await client.end().catch(() => undefined);
  }
}
