// Tables of the PostgreSQL store, created on first use inside one schema.
// Every row keeps the item's exact JSON (`record`, type json: verbatim, and unlike jsonb
// it accepts \u0000); the other columns exist to index, filter and count. `key` is a
// hash of the idempotency key (see records.ts hashKey), so URLs of any length fit the
// unique index. `id` (bigserial) is the insertion order.

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The schema name, double-quoted for SQL; throws on anything but a plain identifier. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new TypeError(`PostgreSQL schema name must match ${SCHEMA_NAME}, got ${JSON.stringify(schema)}`);
  return `"${schema}"`;
}

export function schemaStatements(s: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.runs (
      run_id text PRIMARY KEY,
      documents bigint NOT NULL DEFAULT 0,
      failures bigint NOT NULL DEFAULT 0,
      links bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}.documents (
      id bigserial PRIMARY KEY,
      run_id text NOT NULL,
      key text NOT NULL,
      job_id text NOT NULL,
      url text NOT NULL,
      kind text NOT NULL,
      record json NOT NULL,
      UNIQUE (run_id, key)
    )`,
    `CREATE INDEX IF NOT EXISTS documents_run_order ON ${s}.documents (run_id, id)`,
    `CREATE INDEX IF NOT EXISTS documents_job_order ON ${s}.documents (run_id, job_id, id)`,
    `CREATE TABLE IF NOT EXISTS ${s}.failures (
      id bigserial PRIMARY KEY,
      run_id text NOT NULL,
      key text NOT NULL,
      job_id text NOT NULL,
      url text NOT NULL,
      record json NOT NULL,
      UNIQUE (run_id, key)
    )`,
    `CREATE INDEX IF NOT EXISTS failures_run_order ON ${s}.failures (run_id, id)`,
    `CREATE INDEX IF NOT EXISTS failures_job_order ON ${s}.failures (run_id, job_id, id)`,
    `CREATE TABLE IF NOT EXISTS ${s}.links (
      id bigserial PRIMARY KEY,
      run_id text NOT NULL,
      list text NOT NULL,
      key text NOT NULL,
      url text NOT NULL,
      record json NOT NULL,
      UNIQUE (run_id, list, key)
    )`,
    `CREATE INDEX IF NOT EXISTS links_list_order ON ${s}.links (run_id, list, id)`,
  ];
}
