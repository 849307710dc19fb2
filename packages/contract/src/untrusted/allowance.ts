// Which private hosts a deployment allows by name: WEBDATA_ALLOW_PRIVATE_ADDRESSES as a list of
// `host` (any port) or `host:port`. Pure (no Node built-ins): the workflow's input check runs it
// in the sandbox, the client before sending, the worker after DNS.
import ipaddr from 'ipaddr.js';
import { ALLOW_PRIVATE_ADDRESSES_ENV } from './address.js';

/**
 * `all`: the blanket allowance (`1`/`true`, kept for compatibility); else only `hosts`, each
 * `host` or `host:port` in the form {@link normalizeHost} gives (IPv6 in brackets).
 */
export interface AddressAllowance {
  all: boolean;
  hosts: readonly string[];
}

/** What the client option, the worker option and a run's recorded input take: off, blanket, or a list. */
export type PrivateAddressOption = boolean | readonly string[];

export const NO_PRIVATE_ADDRESSES: AddressAllowance = Object.freeze({ all: false, hosts: Object.freeze([]) });
const ALL_PRIVATE_ADDRESSES: AddressAllowance = Object.freeze({ all: true, hosts: Object.freeze([]) });

const RULE = 'must be 0 (off) or a comma-separated list of host or host:port (IPv6 in brackets), e.g. 127.0.0.1:3003,crawler.internal:8080';

/**
 * Cloud metadata services. A listed name that resolves to one of them is still refused: only an
 * entry naming the metadata host itself allows it.
 */
const METADATA_HOSTS = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '[fd00:ec2::254]', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/**
 * Reads the setting: empty, `0` and `false` are off; `1` and `true` the blanket allowance; else a
 * comma-separated list. Throws one line naming the variable and the rule for a malformed entry.
 */
export function parseAddressAllowance(value: string | undefined): AddressAllowance {
  const text = (value ?? '').trim();
  const word = text.toLowerCase();
  if (word === '' || word === '0' || word === 'false') return NO_PRIVATE_ADDRESSES;
  if (word === '1' || word === 'true') return ALL_PRIVATE_ADDRESSES;
  return { all: false, hosts: parseEntries(text.split(','), ALLOW_PRIVATE_ADDRESSES_ENV) };
}

/** The allowance an option gives (`true` blanket, `false` off, a list its hosts); undefined when unset. */
export function addressAllowanceOf(option: PrivateAddressOption | undefined, name = 'allowPrivateAddresses'): AddressAllowance | undefined {
  if (option === undefined) return undefined;
  if (typeof option === 'boolean') return option ? ALL_PRIVATE_ADDRESSES : NO_PRIVATE_ADDRESSES;
  return { all: false, hosts: parseEntries(option, name) };
}

/** The option form of an allowance (`true`, `false` or the list), as a run's input records it. */
export function addressAllowanceOption(a: AddressAllowance): boolean | string[] {
  if (a.all) return true;
  return a.hosts.length > 0 ? [...a.hosts] : false;
}

/** One line for `webdata doctor`: off, which hosts, or blanket. */
export function describeAddressAllowance(a: AddressAllowance): string {
  if (a.all) return `private addresses: all allowed (${ALLOW_PRIVATE_ADDRESSES_ENV} is the blanket 1/true; list host:port entries instead)`;
  if (a.hosts.length === 0) return `private addresses: refused (${ALLOW_PRIVATE_ADDRESSES_ENV} is off)`;
  return `private addresses: allowed only for ${a.hosts.join(', ')} (${ALLOW_PRIVATE_ADDRESSES_ENV})`;
}

/** Whether `b` allows nothing that `a` does not. */
export function allowanceWithin(b: AddressAllowance, a: AddressAllowance): boolean {
  if (a.all) return true;
  return !b.all && b.hosts.every((h) => a.hosts.includes(h));
}

/**
 * Whether a URL's host (as WHATWG URL gives it, or an address from DNS) on `port` is allowed: an
 * entry names that host with no port or with that port.
 */
export function allowsHost(a: AddressAllowance, host: string, port: number | string | undefined): boolean {
  if (a.all) return true;
  const h = normalizeHost(host);
  return a.hosts.some((e) => e === h || (port !== undefined && port !== '' && e === `${h}:${port}`));
}

/**
 * Whether a connection to `address` (from DNS) for the name `host` is allowed: the address or the
 * name is listed. A cloud metadata address must be listed itself: a listed name is not enough.
 */
export function allowsResolved(a: AddressAllowance, host: string, address: string, port: number | string | undefined): boolean {
  if (a.all || allowsHost(a, address, port)) return true;
  if (isMetadataAddress(address)) return false;
  return allowsHost(a, host, port);
}

/** A metadata service's address, also inside IPv6 (::ffff:169.254.169.254). */
function isMetadataAddress(address: string): boolean {
  const host = normalizeHost(address);
  if (METADATA_HOSTS.has(host)) return true;
  const bare = host.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) && METADATA_HOSTS.has(normalizeHost(ipaddr.process(bare).toString()));
}

/** The port a URL connects to: its own, else its scheme's. */
export function urlPort(url: URL): string {
  if (url.port !== '') return url.port;
  return url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '';
}

/**
 * A host in the one form entries and checks compare: lower case without trailing dots, IPv4
 * dotted, IPv6 compressed in brackets (as WHATWG URL writes it).
 */
export function normalizeHost(host: string): string {
  // A batch names one site's host a thousand times; the IPv6 and IPv4 checks are the cost.
  if (host === lastHost) return lastNormalized;
  lastNormalized = normalizeUncached(host);
  lastHost = host;
  return lastNormalized;
}
let lastHost: string | undefined;
let lastNormalized = '';

function normalizeUncached(host: string): string {
  const bare = host.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '').toLowerCase().replace(/\.+$/, '');
  if (ipaddr.IPv6.isValid(bare) && bare.includes(':')) return `[${ipaddr.IPv6.parse(bare).toString()}]`;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare).toString();
  return bare;
}

function parseEntries(entries: readonly string[], name: string): string[] {
  const hosts: string[] = [];
  for (const raw of entries) {
    if (typeof raw !== 'string') throw new Error(`${name}: ${RULE}`);
    const entry = raw.trim();
    if (entry === '') continue; // "a,b," and spaces after commas are forgiven
    const host = parseEntry(entry);
    if (host === undefined) throw new Error(`${name}: ${JSON.stringify(entry)} is not a host or host:port: ${RULE}`);
    if (!hosts.includes(host)) hosts.push(host);
  }
  if (hosts.length === 0) throw new Error(`${name}: ${RULE}`);
  return hosts;
}

/** Words meant as a switch, not as a host: refused rather than read as a one-label name. */
const SWITCH_WORDS = new Set(['yes', 'no', 'on', 'off', 'all', 'any', 'none', 'y', 'n']);

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** `host` or `host:port` in normal form, or undefined when the entry is neither. */
function parseEntry(entry: string): string | undefined {
  const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry) ?? /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!m) return undefined;
  const [, rawHost = '', rawPort] = m;
  const port = rawPort === undefined ? undefined : Number(rawPort);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const bracketed = entry.startsWith('[');
  const host = normalizeHost(rawHost);
  if (SWITCH_WORDS.has(host)) return undefined;
  if (bracketed) {
    if (!host.startsWith('[')) return undefined; // brackets hold an IPv6 address only
  } else if (!ipaddr.IPv4.isValidFourPartDecimal(host)) {
    const labels = host.split('.');
    if (!labels.every((l) => LABEL.test(l))) return undefined;
    // WHATWG URL reads a host whose last label is a number as IPv4 (10.1, 0x7f): not a name.
    if (!/^[a-z_]/.test(labels[labels.length - 1] ?? '')) return undefined;
  }
  return port === undefined ? host : `${host}:${port}`;
}
