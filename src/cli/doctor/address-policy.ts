// The address policy line of `webdata doctor`: which non-public hosts (loopback, private,
// link-local...) runs may name, as the contract reads WEBDATA_ALLOW_PRIVATE_ADDRESSES for the
// client, the workflow's input check and the worker alike.
import { ALLOW_PRIVATE_ADDRESSES_ENV, describeAddressAllowance, parseAddressAllowance } from 'webdata-contract';
import type { CheckResult } from './check.js';

/** Off or a list of named hosts: ok; the blanket 1/true: warn; a value the worker refuses: fail. */
export function addressPolicyLine(env: NodeJS.ProcessEnv): CheckResult {
  const name = 'address policy';
  let allowance;
  try {
    allowance = parseAddressAllowance(env[ALLOW_PRIVATE_ADDRESSES_ENV]);
  } catch (err) {
    return { name, status: 'fail', detail: (err as Error).message, fix: `unset ${ALLOW_PRIVATE_ADDRESSES_ENV} (private addresses refused) or list host:port entries` };
  }
  const detail = describeAddressAllowance(allowance);
  if (allowance.all) {
    return { name, status: 'warn', detail: `${detail}: a tenant's URL may reach loopback and internal hosts.`, fix: `list the private hosts runs need (host:port,...) unless every URL comes from you` };
  }
  return { name, status: 'ok', detail };
}
