// `webdata tenants --tenant T --erase [--dry-run]`: erases a tenant (client/erase-tenant.ts) and
// prints what it found, one line of counts; `webdata tenants --erasures` lists the erasure records.
// The store is opened as `webdata export` opens it (--store, else WEBDATA_STORE, else .data/store).
import { parseArgs } from 'node:util';
import { eraseTenant, type ErasureReport } from '../../client/erase-tenant.js';
import { listErasures, type ErasureCounts } from '../../client/erasure-record.js';
import { tenantSchema } from '../../shared/tenant.js';
import { connectClient } from '../connect.js';
import { UsageError } from '../errors.js';
import { openCliStore } from '../store-arg.js';

const USAGE = 'webdata tenants --tenant T --erase [--dry-run] [--reason TEXT] [--store-run-prefix P] [--store DIR|postgres://...] [--json], or webdata tenants --erasures [--tenant T] [--store ...] [--json]';

export function countsLine(c: ErasureCounts): string {
  return `schedules ${c.schedules}, runs ${c.runs} (executions ${c.executions}, cancelled ${c.cancelled}, terminated ${c.terminated}), `
    + `store runs ${c.storeRuns}, documents ${c.documents}, failures ${c.failures}, links ${c.links}, series ${c.series}, ledger ${c.ledger}`;
}

function printReport(r: ErasureReport, storeLabel: string, namespace: string): void {
  if (!r.found) {
    console.log(`tenant ${r.tenant}: nothing to erase (no runs, schedules, stored documents, series or ledger of it in namespace ${namespace} and ${storeLabel})`);
    for (const url of r.finished ?? []) console.log(`erasure record ${url} marked done (that erasure was cut short; nothing of ${r.tenant} is left)`);
    return;
  }
  console.log(r.dryRun ? `tenant ${r.tenant}: would erase (dry run, nothing changed)` : `tenant ${r.tenant}: erased`);
  console.log(countsLine(r.counts));
  for (const s of r.keptSeries) {
    console.log(`kept: series ${s.name} also records ${s.ofOthers} run(s) of other tenants; its ${s.ofTenant} entr${s.ofTenant === 1 ? 'y' : 'ies'} of ${r.tenant} stay in its index (the store cannot remove single entries)`);
  }
  for (const k of r.keptStoreRuns) {
    console.log(k.why === 'copies'
      ? `kept: store run ${k.runId}: another tenant's run of a shared series points at its pages`
      : `kept: store run ${k.runId} is also another tenant's workflow id`);
  }
  if (r.stillListed > 0) console.log(`visibility still listed ${r.stillListed} execution(s) of ${r.tenant} when the erasure ended (the listing lags behind deletions, or a run started meanwhile): run it again`);
  if (r.record) console.log(`erasure record ${r.record} in ${storeLabel}`);
  for (const url of r.finished ?? []) console.log(`erasure record ${url} marked done (that erasure was cut short; this one finished it)`);
}

export async function tenantsEraseCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      tenant: { type: 'string' },
      erase: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      erasures: { type: 'boolean' },
      reason: { type: 'string' },
      'store-run-prefix': { type: 'string' },
      store: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`tenants takes no arguments, got "${positionals.join(' ')}": ${USAGE}`);
  if (values.tenant !== undefined && !tenantSchema.safeParse(values.tenant).success) {
    throw new UsageError(`--tenant: must be 1-64 letters, digits, dot, dash or underscore, got "${values.tenant}"`);
  }
  if (values.erase && values.erasures) throw new UsageError(`--erase and --erasures go alone: ${USAGE}`);
  if (values.erasures) {
    if (values['dry-run'] || values.reason !== undefined || values['store-run-prefix'] !== undefined) throw new UsageError(`--erasures lists the records: give no --dry-run, --reason or --store-run-prefix (${USAGE})`);
    return printErasures(values.store, values.tenant, values.json === true);
  }
  if (values.tenant === undefined) throw new UsageError(`--erase needs --tenant T: ${USAGE}`);
  if (values.reason !== undefined && values.reason.length > 500) throw new UsageError('--reason: at most 500 characters');
  const prefix = values['store-run-prefix'];
  if (prefix !== undefined && !/^[A-Za-z0-9._-]{3,128}$/.test(prefix)) throw new UsageError(`--store-run-prefix: must be 3-128 letters, digits, dot, dash or underscore, got "${prefix}"`);

  const where = openCliStore(values.store);
  try {
    const conn = await connectClient();
    try {
      const report = await eraseTenant(conn.client, where.store, values.tenant, { dryRun: values['dry-run'] === true, reason: values.reason, storeRunPrefix: prefix });
      if (values.json) console.log(JSON.stringify(report));
      else printReport(report, where.label, conn.namespace);
      return 0;
    } finally {
      await conn.close();
    }
  } finally {
    await where.store.close().catch(() => {});
  }
}

async function printErasures(storeFlag: string | undefined, tenant: string | undefined, json: boolean): Promise<number> {
  const where = openCliStore(storeFlag);
  try {
    const records = await listErasures(where.store, tenant).catch((err: unknown) => { throw where.readFailure(err); });
    if (json) {
      console.log(JSON.stringify(records));
      return 0;
    }
    if (records.length === 0) {
      console.log(`no erasures recorded${tenant ? ` for tenant ${tenant}` : ''} in ${where.label}`);
      return 0;
    }
    for (const r of records) {
      console.log(`${r.url}  ${r.status === 'done' ? 'done' : 'begun, not finished'}${r.reason ? `  reason: ${r.reason}` : ''}`);
      console.log(`  ${countsLine(r.counts)}`);
    }
    return 0;
  } finally {
    await where.store.close().catch(() => {});
  }
}
