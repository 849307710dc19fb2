// The client's half of the one address setting: the `allowPrivateAddresses` option, else
// WEBDATA_ALLOW_PRIVATE_ADDRESSES. Off by default: a tenant's URL may not point inward.
import { addressAllowanceOf, addressAllowanceOption, ALLOW_PRIVATE_ADDRESSES_ENV, parseAddressAllowance, type PrivateAddressOption } from 'webdata-contract';
import { PipelineInputError, type AddressPolicy } from '../workflows/input.js';

export interface AddressPolicyOption {
  /**
   * Private hosts a run's URLs may name: `host` or `host:port` entries, `false` none, `true` all
   * (the blanket allowance); default from the environment.
   */
  allowPrivateAddresses?: PrivateAddressOption;
}

/** The policy a run starts under; a malformed setting is one line naming it and the rule. */
export function addressPolicy(option: AddressPolicyOption = {}): AddressPolicy {
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
