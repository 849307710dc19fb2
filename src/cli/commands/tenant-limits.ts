// `webdata tenants --tenant T|--default --max-runs N|none --credits-per-hour N|none`: per-tenant
// limits (runs in flight, credits per hour) and the default for all tenants; `--default` alone
// shows the default. The listing itself (with the limits' columns) is tenants.ts.
import { parseArgs } from 'node:util';
import { ALL_TENANTS, setTenantLimits, type TenantLimitsChange } from '../../client/tenants.js';
import { tenantDefaults, type TenantLimits } from '../../coordination/tenant-limits.js';
import type { TenantUsage } from '../../coordination/tenant-ledger.js';
import { tenantSchema } from '../../shared/tenant.js';
import { connectClient } from '../connect.js';
import { UsageError } from '../errors.js';

const LIMIT_FLAGS = ['--max-runs', '--credits-per-hour', '--default'];

/** Whether the command line sets or shows limits (the listing and budgets are tenants.ts's). */
export function limitsRequested(argv: string[]): boolean {
  return argv.some((a) => LIMIT_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)));
}

function limitValue(flag: string, raw: string | undefined, min: number, forTenant: boolean): TenantLimitsChange['maxRunsInFlight'] {
  if (raw === undefined) return undefined;
  const v = raw.trim();
  if (v === 'none') return null;
  if (v === 'default' && forTenant) return 'default';
  if (/^\d+$/.test(v) && Number(v) >= min && Number(v) <= (min === 1 ? 100_000 : 1_000_000_000)) return Number(v);
  const range = min === 1 ? 'a whole number from 1 to 100000' : 'a whole number of credits (0 or more)';
  throw new UsageError(`${flag}: must be ${range}, none${forTenant ? ' or default (follow the default for all tenants)' : ''}, got "${raw}"`);
}

/** `3 runs`, `none`: a limit as the tables print it. */
export function limitText(value: number | null): string {
  return value === null ? 'none' : String(value);
}

function defaultsLine(d: TenantLimits): string {
  return `default for all tenants: max runs in flight ${limitText(d.maxRunsInFlight)}, credits per hour ${limitText(d.creditsPerHour)}`;
}

export async function tenantLimitsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      tenant: { type: 'string' },
      default: { type: 'boolean' },
      'max-runs': { type: 'string' },
      'credits-per-hour': { type: 'string' },
      'task-queue': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const usage = 'webdata tenants --tenant T|--default [--max-runs N|none] [--credits-per-hour N|none]';
  if (positionals.length > 0) throw new UsageError(`tenants takes no arguments, got "${positionals.join(' ')}": ${usage}`);
  if (values.tenant !== undefined && values.default) throw new UsageError(`--tenant and --default: give one (a tenant's own limits, or the default for all tenants): ${usage}`);
  if (values.tenant === undefined && !values.default) throw new UsageError(`--max-runs and --credits-per-hour need --tenant T or --default: ${usage}`);
  if (values.tenant !== undefined && !tenantSchema.safeParse(values.tenant).success) {
    throw new UsageError(`--tenant: must be 1-64 letters, digits, dot, dash or underscore, got "${values.tenant}"`);
  }
  const forTenant = values.tenant !== undefined;
  const change: TenantLimitsChange = {
    maxRunsInFlight: limitValue('--max-runs', values['max-runs'], 1, forTenant),
    creditsPerHour: limitValue('--credits-per-hour', values['credits-per-hour'], 0, forTenant),
  };
  const setting = change.maxRunsInFlight !== undefined || change.creditsPerHour !== undefined;
  if (forTenant && !setting) throw new UsageError(`--tenant T with limits needs --max-runs or --credits-per-hour: ${usage}`);
  const conn = await connectClient();
  try {
    if (!forTenant) {
      const defaults = setting ? (await setTenantLimits(conn.client, ALL_TENANTS, change, { taskQueue: values['task-queue'] })) as TenantLimits : await tenantDefaults(conn.client);
      console.log(values.json ? JSON.stringify(defaults) : defaultsLine(defaults));
      return 0;
    }
    const set = (await setTenantLimits(conn.client, values.tenant as string, change, { taskQueue: values['task-queue'] })) as TenantUsage;
    if (values.json) {
      console.log(JSON.stringify(set));
      return 0;
    }
    const l = set.limits;
    const own = (key: keyof TenantLimits) => (l && key in l.override ? '' : ' (default)');
    console.log(`tenant ${set.tenant}: max runs in flight ${limitText(l?.maxRunsInFlight ?? null)}${own('maxRunsInFlight')}, credits per hour ${limitText(l?.creditsPerHour ?? null)}${own('creditsPerHour')}; ${l?.runsInFlight ?? 0} in flight, ${l?.creditsThisHour ?? 0} credits this hour`);
    return 0;
  } finally {
    await conn.close();
  }
}

/** The listing's columns for a tenant's limits: runs in flight / limit (+ runs in line), credits this hour / limit. */
export function limitColumns(u: TenantUsage): string {
  const l = u.limits;
  const runs = `${l?.runsInFlight ?? 0}/${l?.maxRunsInFlight ?? '-'}${l?.waiting ? ` +${l.waiting}` : ''}`;
  const hour = `${l?.creditsThisHour ?? 0}/${l?.creditsPerHour ?? '-'}`;
  return `  ${runs.padStart(9)}  ${hour.padStart(11)}`;
}

export const LIMIT_HEADER = `  ${'runs'.padStart(9)}  ${'this hour'.padStart(11)}`;

/** Printed above the listing when a default is set. */
export async function defaultsNote(client: Parameters<typeof tenantDefaults>[0]): Promise<string | undefined> {
  const d = await tenantDefaults(client);
  return d.maxRunsInFlight === null && d.creditsPerHour === null ? undefined : defaultsLine(d);
}
