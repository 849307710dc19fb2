// Which webhook URLs the service may call: loopback only unless allowNonLoopback.
import { isIP } from 'node:net';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host.startsWith('::ffff:127.');
  return false;
}

/** The reason a URL may not receive deliveries, or undefined when it may. */
export function refuseDestination(url: string, allowNonLoopback: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `invalid webhook URL "${url}"`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `unsupported webhook URL scheme ${parsed.protocol}`;
  if (!allowNonLoopback && !isLoopbackHost(parsed.hostname)) {
    return `webhook destination ${parsed.host} is not loopback (set allowNonLoopback to allow it)`;
  }
  return undefined;
}
