// A fetch for the worker's own requests (robots.txt, the change summary webhook) that reaches
// public addresses only: the address checked is the one connected to, after DNS (a lookup that
// refuses private answers) and after every redirect (followed here, each hop checked again), so a
// public name that resolves or redirects inward is refused before a byte is sent to it.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import {
  addressAllowanceOf,
  addressKind,
  allowsHost,
  allowsResolved,
  ALLOW_PRIVATE_ADDRESSES_ENV,
  hostKind,
  parseAddressAllowance,
  privateAddressRule,
  urlPort,
  type PrivateAddressOption,
} from 'webdata-contract';

/** The resolver's shape (node:dns lookup with `all: true`); tests inject one that names any host. */
export type AddressLookup = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface PublicFetchOptions {
  /**
   * Private hosts that may be reached: `host` or `host:port` entries (a name that resolves to a
   * private address passes when the name or the address is listed), `true` all, `false` none.
   * Default from WEBDATA_ALLOW_PRIVATE_ADDRESSES (off).
   */
  allowPrivateAddresses?: PrivateAddressOption;
  /** DNS; default node:dns lookup. */
  lookup?: AddressLookup;
  /** Tests only: addresses to treat as public (a loopback server standing in for a public site). */
  treatAsPublic?: (address: string) => boolean;
  /** Redirects followed before the fetch fails; default 5 (RFC 9309 asks for at least five). */
  maxRedirects?: number;
}

/** A request refused because its host is, or resolves to, a non-public address. */
export class PrivateAddressError extends Error {
  readonly code = 'PRIVATE_ADDRESS';
  constructor(readonly url: string, readonly rule: string) {
    super(`${url}: ${rule}`);
    this.name = 'PrivateAddressError';
  }
}

export interface PublicFetch {
  fetch: typeof fetch;
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function createPublicFetch(options: PublicFetchOptions = {}): PublicFetch {
  const allowance = addressAllowanceOf(options.allowPrivateAddresses) ?? parseAddressAllowance(process.env[ALLOW_PRIVATE_ADDRESSES_ENV]);
  const resolve: AddressLookup = options.lookup ?? ((host, opts, cb) => dnsLookup(host, opts, cb));
  const isPublic = (address: string) => options.treatAsPublic?.(address) === true || addressKind(address) === 'public';

  /** A DNS lookup for connections to `port`: an entry may name a port, so the check needs it. */
  const lookupFor = (port: string) => (hostname: string, opts: LookupOptions, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(hostname, { ...opts, all: true } as LookupAllOptions, (err, addresses) => {
      if (err) return callback(err, []);
      const inward = allowance.all ? undefined : addresses.find((a) => !isPublic(a.address) && !allowsResolved(allowance, hostname, a.address, port));
      if (inward) return callback(new PrivateAddressError(hostname, privateAddressRule(`${hostname} (${inward.address})`, addressKind(inward.address) ?? 'reserved', `${hostname}:${port}`)), []);
      if (opts.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
  const connectors = new Map<string, buildConnector.connector>();
  const agent = new Agent({
    connect: (opts, callback) => {
      const port = String(opts.port || (opts.protocol === 'https:' ? 443 : 80));
      let connector = connectors.get(port);
      if (!connector) connectors.set(port, (connector = buildConnector({ lookup: lookupFor(port) } as buildConnector.BuildOptions)));
      connector(opts, callback);
    },
  });

  /** Refuses a URL whose host is itself a non-public address (an IP literal or localhost). */
  function checkHost(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${url.href}: only http and https URLs are fetched`);
    if (allowance.all) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const kind = hostKind(host);
    if (kind === 'name' || kind === 'public' || options.treatAsPublic?.(host) === true) return;
    const port = urlPort(url);
    if (allowsHost(allowance, url.hostname, port)) return;
    throw new PrivateAddressError(url.href, privateAddressRule(url.hostname, kind, `${url.hostname}:${port}`));
  }

  async function publicFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    let url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const follow = (init.redirect ?? 'follow') === 'follow';
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    for (let hop = 0; ; hop++) {
      checkHost(url);
      const res = await send(url, { ...init, method, body, redirect: 'manual' });
      const location = res.headers.get('location');
      if (!follow || !REDIRECTS.has(res.status) || !location) return res;
      await res.body?.cancel().catch(() => {});
      if (hop >= (options.maxRedirects ?? 5)) throw new TypeError(`${url.href}: more than ${options.maxRedirects ?? 5} redirects`);
      url = new URL(location, url);
      // As fetch does: 303, and 301/302 after a POST, continue as a GET without the body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
    }
  }

  async function send(url: URL, init: RequestInit): Promise<Response> {
    try {
      return (await undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as Response;
    } catch (err) {
      // undici reports a refused lookup as "fetch failed" with the reason as its cause.
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof PrivateAddressError) throw new PrivateAddressError(url.href, cause.rule);
      throw err;
    }
  }

  return { fetch: publicFetch as typeof fetch, close: () => agent.close() };
}
