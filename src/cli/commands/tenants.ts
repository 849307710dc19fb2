// `webdata tenants`: each tenant's credits this month against its monthly budget (its ledger
// workflow); `--set-budget N --tenant T` sets a budget (`none` removes it).
import { parseArgs } from 'node:util';
import { listTenantUsage, setTenantBudget } from '../../client/tenants.js';
import { tenantUsage, type TenantUsage } from '../../coordination/tenant-ledger.js';
import { tenantSchema } from '../../shared/tenant.js';
import { connectClient } from '../connect.js';
import { CliError, UsageError } from '../errors.js';
import { defaultsNote, LIMIT_HEADER, limitColumns, limitsRequested, tenantLimitsCommand } from './tenant-limits.js';

function row(u: TenantUsage): string {
  const budget = u.budget === null ? 'none' : String(u.budget);
  const left = u.left === null ? '-' : String(u.left);
  return `${u.tenant.padEnd(24)} ${u.month}  ${String(u.used).padStart(10)}  ${String(u.held).padStart(8)}  ${budget.padStart(10)}  ${left.padStart(10)}${limitColumns(u)}`;
}

export async function tenantsCommand(argv: string[]): Promise<number> {
  // --erase and --erasures: their own flags and store (tenants-erase.ts).
  if (argv.includes('--erase') || argv.includes('--erasures')) return (await import('./tenants-erase.js')).tenantsEraseCommand(argv);
  if (limitsRequested(argv)) return tenantLimitsCommand(argv);
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { tenant: { type: 'string' }, 'set-budget': { type: 'string' }, 'task-queue': { type: 'string' }, json: { type: 'boolean' } },
  });
  if (positionals.length > 0) throw new UsageError(`tenants takes no arguments, got "${positionals.join(' ')}": webdata tenants [--tenant T] [--set-budget N|none] [--json]`);
  if (values.tenant !== undefined && !tenantSchema.safeParse(values.tenant).success) {
    throw new UsageError(`--tenant: must be 1-64 letters, digits, dot, dash or underscore, got "${values.tenant}"`);
  }
  let budget: number | null | undefined;
  if (values['set-budget'] !== undefined) {
    if (values.tenant === undefined) throw new UsageError('--set-budget needs --tenant T: webdata tenants --tenant T --set-budget N|none');
    const v = values['set-budget'].trim();
    if (v !== 'none' && !/^\d+$/.test(v)) throw new UsageError(`--set-budget: must be a whole number of credits (0 or more) or none, got "${values['set-budget']}"`);
    budget = v === 'none' ? null : Number(v);
  }
  const conn = await connectClient();
  try {
    let list: TenantUsage[];
    if (budget !== undefined) {
      list = [await setTenantBudget(conn.client, values.tenant as string, budget, { taskQueue: values['task-queue'] })];
    } else if (values.tenant !== undefined) {
      const one = await tenantUsage(conn.client, values.tenant);
      if (!one) throw new CliError(`tenant ${values.tenant} has no ledger in namespace ${conn.namespace}: no run of it has spent credits and no budget is set (set one: webdata tenants --tenant ${values.tenant} --set-budget N)`);
      list = [one];
    } else {
      list = await listTenantUsage(conn.client);
    }
    if (values.json) {
      console.log(JSON.stringify(list));
      return 0;
    }
    if (list.length === 0) {
      console.log(`no tenant ledgers in namespace ${conn.namespace} (a run with input.tenant creates its tenant's)`);
      return 0;
    }
    const note = await defaultsNote(conn.client);
    if (note) console.log(note);
    console.log(`${'tenant'.padEnd(24)} month    ${'used'.padStart(10)}  ${'held'.padStart(8)}  ${'budget'.padStart(10)}  ${'left'.padStart(10)}${LIMIT_HEADER}`);
    for (const u of list) console.log(row(u));
    return 0;
  } finally {
    await conn.close();
  }
}
