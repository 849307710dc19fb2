// The client's half of the one address setting: the `allowPrivateAddresses` option, else
// WEBDATA_ALLOW_PRIVATE_ADDRESSES. Off by default: a tenant's URL may not point inward.
import { privateAddressesAllowed } from 'webdata-contract';
import type { AddressPolicy } from '../workflows/input.js';

export interface AddressPolicyOption {
  /** Allow loopback, private, link-local and other non-public hosts; default from the environment. */
  allowPrivateAddresses?: boolean;
}

export function addressPolicy(option: AddressPolicyOption = {}): AddressPolicy {
  return { allowPrivateAddresses: option.allowPrivateAddresses ?? privateAddressesAllowed(process.env) };
}
