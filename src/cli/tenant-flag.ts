// `--tenant` of `webdata status` and `export`: checked by the tenant rule (a usage error naming
// the flag), then the client's tenant listing, loaded only when the flag is given.
import type { listTenantRuns } from '../client/tenant-runs.js';
import { UsageError } from './errors.js';

export async function tenantRunsFor(tenant: string): Promise<typeof listTenantRuns> {
  const runs = await import('../client/tenant-runs.js');
  try {
    runs.tenantQuery(tenant);
  } catch (err) {
    throw new UsageError(`--${(err as Error).message}`);
  }
  return runs.listTenantRuns;
}
