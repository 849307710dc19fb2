// The address policy line of `webdata doctor`: which non-public hosts (loopback, private,
// link-local...) runs may name. Kept in this one function, from the one variable, so that it can
// be described by the contract's own reading of the setting when that reading changes.
import type { CheckResult } from './check.js';

const VARIABLE = 'WEBDATA_ALLOW_PRIVATE_ADDRESSES';

/** off (unset, empty, 0, false): ok; the blanket 1/true: warn; anything else: the worker refuses it. */
export function addressPolicyLine(env: NodeJS.ProcessEnv): CheckResult {
  const name = 'address policy';
  const raw = env[VARIABLE];
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || value === '0' || value === 'false') {
    return { name, status: 'ok', detail: `private addresses refused (${VARIABLE} ${raw === undefined ? 'unset' : `=${raw}`}): runs and their webhooks may name public hosts only` };
  }
  if (value === '1' || value === 'true') {
    return { name, status: 'warn', detail: `every private address allowed (${VARIABLE}=${raw}): a tenant's URL may reach loopback and internal hosts.`, fix: `unset ${VARIABLE} unless every URL comes from you` };
  }
  return { name, status: 'fail', detail: `${VARIABLE}=${raw} is not a value the worker reads.`, fix: `unset it (private addresses refused) or set it to 1` };
}
