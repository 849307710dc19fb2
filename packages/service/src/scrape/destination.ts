// Where the engine may connect. By default only loopback: the check runs on the URL before any
// request (so a refused destination costs no DNS query and no connection), on every redirect hop,
// and once more in the connector's lookup. `*.localhost` always resolves to 127.0.0.1 (RFC 6761),
// which Node does not do by itself.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { HttpError } from '../core/http-error.js';

export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase();
  if (isIP(a) === 4) return a.startsWith('127.');
  if (isIP(a) === 6) return a === '::1' || a === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(a);
  return false;
}

export function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** URL.hostname keeps IPv6 brackets. */
const bare = (hostname: string): string => hostname.replace(/^\[|\]$/g, '');

export function destinationRefused(url: URL): HttpError {
  return new HttpError(
    403,
    `Destination not allowed: ${url.host} is not a loopback address. This local service only fetches `
      + '127.0.0.0/8, ::1, localhost and *.localhost unless it is started with allowNonLoopback.',
    { code: 'DESTINATION_NOT_ALLOWED' },
  );
}

/** Throws 400 for non-http(s) URLs and 403 for non-loopback hosts (unless allowed). */
export function checkDestination(url: URL, allowNonLoopback: boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpError(400, `Only http and https URLs can be scraped, got ${url.protocol}`, { code: 'BAD_REQUEST' });
  }
  if (allowNonLoopback) return;
  const host = bare(url.hostname);
  if (isLocalhostName(host) || isLoopbackAddress(host)) return;
  throw destinationRefused(url);
}

/** A net.connect lookup: *.localhost → 127.0.0.1; other names only when non-loopback is allowed. */
export function createLookup(allowNonLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    if (isLocalhostName(hostname)) {
      if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else callback(null, '127.0.0.1', 4);
      return;
    }
    if (!allowNonLoopback) {
      // Unreachable after checkDestination; kept so the connector alone is also safe.
      const err = Object.assign(new Error(`lookup refused for ${hostname}: not a loopback name`), { code: 'DESTINATION_NOT_ALLOWED' });
      callback(err, options.all ? [] : '', 4);
      return;
    }
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '', 4);
      if (options.all) callback(null, addresses as LookupAddress[]);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
