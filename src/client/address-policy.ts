// The client's half of the one address setting: the `allowPrivateAddresses` option, else
// WEBDATA_ALLOW_PRIVATE_ADDRESSES. Off by default: a tenant's URL may not point inward. Also
// the deployment's stall time (WEBDATA_STALL_AFTER_MS), recorded the same way in each run's input.
import { addressAllowanceOf, addressAllowanceOption, ALLOW_PRIVATE_ADDRESSES_ENV, parseAddressAllowance, type PrivateAddressOption } from 'webdata-contract';
import { MIN_STALL_AFTER_MS, PipelineInputError, type AddressPolicy } from '../workflows/input.js';

export interface AddressPolicyOption {
  /**
   * Private hosts a run's URLs may name: `host` or `host:port` entries, `false` none, `true` all
   * (the blanket allowance); default from the environment.
   */
  allowPrivateAddresses?: PrivateAddressOption;
}

/** The deployment's stall time for runs that set none (recorded in their input when they start). */
export const STALL_AFTER_MS_ENV = 'WEBDATA_STALL_AFTER_MS';

function deploymentStallAfterMs(): number | undefined {
  const raw = process.env[STALL_AFTER_MS_ENV]?.trim();
  if (!raw) return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < MIN_STALL_AFTER_MS) {
    throw new PipelineInputError([{ path: STALL_AFTER_MS_ENV, message: `must be a whole number of milliseconds, at least ${MIN_STALL_AFTER_MS}, got "${raw}"` }]);
  }
  return ms;
}

/** The policy a run starts under; a malformed setting is one line naming it and the rule. */
export function addressPolicy(option: AddressPolicyOption = {}): AddressPolicy {
  const stallAfterMs = deploymentStallAfterMs();
  return { ...allowancePolicy(option), ...(stallAfterMs !== undefined ? { stallAfterMs } : {}) };
}

function allowancePolicy(option: AddressPolicyOption): AddressPolicy {
  const [path, read] = option.allowPrivateAddresses !== undefined
    ? ['allowPrivateAddresses', () => addressAllowanceOf(option.allowPrivateAddresses, 'allowPrivateAddresses')!]
    : [ALLOW_PRIVATE_ADDRESSES_ENV, () => parseAddressAllowance(process.env[ALLOW_PRIVATE_ADDRESSES_ENV])];
  try {
    return { allowPrivateAddresses: addressAllowanceOption(read()) };
  } catch (err) {
    // The message names the setting already: the path carries it instead.
    throw new PipelineInputError([{ path, message: (err as Error).message.slice(path.length + 2) }]);
  }
}
