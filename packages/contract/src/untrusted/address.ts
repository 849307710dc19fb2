// Which hosts a URL from a tenant may name. Pure (no Node built-ins): the workflow's own input
// check runs it inside the sandbox, the client before sending, the worker after DNS.
import ipaddr from 'ipaddr.js';

/** What an address is; everything but `public` is refused unless private addresses are allowed. */
export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'cloud metadata';

const IPV4_KINDS: Record<string, AddressKind> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
};

const IPV6_KINDS: Record<string, AddressKind> = {
  unicast: 'public',
  loopback: 'loopback',
  uniqueLocal: 'private',
  linkLocal: 'link-local',
  multicast: 'multicast',
  unspecified: 'unspecified',
};

/** Names that mean this machine whatever DNS says (RFC 6761), and a cloud's metadata service. */
const LOCAL_NAMES = /^(localhost|localhost\.localdomain|.+\.localhost)$/;
const METADATA_NAMES = /^(metadata\.google\.internal|metadata\.goog|instance-data(\.ec2\.internal)?)$/;

/** An IP address's kind (IPv4 or IPv6, IPv4 embedded in IPv6 judged as IPv4); undefined if it is no IP. */
export function addressKind(address: string): AddressKind | undefined {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(text)) return undefined;
  const ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv4') return IPV4_KINDS[ip.range()] ?? 'reserved';
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIpv4(v6);
  if (embedded) return IPV4_KINDS[embedded.range()] ?? 'reserved';
  return IPV6_KINDS[v6.range()] ?? 'reserved';
}

/**
 * The IPv4 address inside an IPv6 one that carries it: mapped (::ffff:a.b.c.d), the deprecated
 * compatible form (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16). `::` and `::1` are
 * IPv6's own unspecified and loopback addresses, not IPv4 ones.
 */
function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = ip.parts;
  const range = ip.range();
  if (range === 'ipv4Mapped') return ip.toIPv4Address();
  if (range === 'rfc6052') return ipv4Of(p[6] ?? 0, p[7] ?? 0);
  if (range === '6to4') return ipv4Of(p[1] ?? 0, p[2] ?? 0);
  const compatible = p.slice(0, 6).every((x) => x === 0) && ((p[6] ?? 0) !== 0);
  return compatible ? ipv4Of(p[6] ?? 0, p[7] ?? 0) : undefined;
}

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The kind of a URL's host as WHATWG URL normalised it (decimal, octal, hex and short IPv4
 * already rewritten to dotted form; IPv6 in brackets): an IP's kind, `loopback` for localhost
 * names, `name` for any other name (judged after DNS, where the worker connects).
 */
export function hostKind(hostname: string): AddressKind | 'name' {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  const ip = addressKind(host);
  if (ip) return ip;
  if (LOCAL_NAMES.test(host)) return 'loopback';
  if (METADATA_NAMES.test(host)) return 'cloud metadata';
  return 'name';
}

/**
 * The one line a refused address gets, wherever it is refused. `allow` is the entry that would
 * allow it (`host:port`), named so that the fix is in the line.
 */
export function privateAddressRule(host: string, kind: AddressKind, allow: string = host): string {
  return `must be a public address: ${host} is ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address (add ${allow} to ${ALLOW_PRIVATE_ADDRESSES_ENV} to allow it)`;
}

/** The one setting, for the worker and the client alike (see allowance.ts). */
export const ALLOW_PRIVATE_ADDRESSES_ENV = 'WEBDATA_ALLOW_PRIVATE_ADDRESSES';
