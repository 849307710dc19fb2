// Fetching of crawl infrastructure files (robots.txt, sitemaps) and map discovery pages.
// Destinations are checked where the connection is made, so redirects cannot escape to
// a non-loopback address unless the service allows it; `*.localhost` resolves to
// loopback (RFC 6761), which lets a demo site answer as `blog.localhost` too.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';

export interface FetchedResource {
  status: number;
  /** Final URL after redirects. */
  url: string;
  contentType: string;
  body: Buffer;
}

export interface ResourceFetcher {
  fetch(url: string, opts?: { signal?: AbortSignal; maxBytes?: number; accept?: string }): Promise<FetchedResource>;
  close(): Promise<void>;
}

export class DestinationNotAllowedError extends Error {
  readonly code = 'DESTINATION_NOT_ALLOWED';
}

export class ResourceTooLargeError extends Error {
  readonly code = 'RESOURCE_TOO_LARGE';
}

export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || isLoopbackAddress(h);
}

export function isLoopbackAddress(address: string): boolean {
  if (isIP(address) === 4) return address.startsWith('127.');
  if (isIP(address) === 6) return address === '::1' || /^::ffff:127\./.test(address);
  return false;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that maps *.localhost to 127.0.0.1 and refuses non-loopback addresses. */
export function guardedLookup(allowNonLoopback: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    const name = hostname.toLowerCase();
    if (name === 'localhost' || name.endsWith('.localhost')) {
      if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else callback(null, '127.0.0.1', 4);
      return;
    }
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '', 4);
      const usable = allowNonLoopback ? addresses : addresses.filter((a) => isLoopbackAddress(a.address));
      if (usable.length === 0) {
        return callback(new DestinationNotAllowedError(`${hostname} is not a loopback address; this service only fetches loopback destinations`), options.all ? [] : '', 4);
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0].address, usable[0].family);
    });
  };
}

export interface FetcherOptions {
  allowNonLoopback: boolean;
  userAgent?: string;
  timeoutMs?: number;
}

const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;

export function createResourceFetcher(opts: FetcherOptions): ResourceFetcher {
  const agent = new Agent({
    connect: { lookup: guardedLookup(opts.allowNonLoopback) as never, timeout: opts.timeoutMs ?? 10_000 },
    headersTimeout: opts.timeoutMs ?? 10_000,
    bodyTimeout: opts.timeoutMs ?? 10_000,
  });

  // IP literals never reach the lookup, so each hop (redirects included) is checked here.
  function checkDestination(url: URL): void {
    if (opts.allowNonLoopback) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !isLoopbackAddress(host)) {
      throw new DestinationNotAllowedError(`${host} is not a loopback address; this service only fetches loopback destinations`);
    }
  }

  return {
    async fetch(url, { signal, maxBytes = DEFAULT_MAX_BYTES, accept } = {}) {
      let current = new URL(url);
      for (let hop = 0; ; hop++) {
        checkDestination(current);
        const res = await request(current, {
          dispatcher: agent,
          signal,
          headers: { 'user-agent': opts.userAgent ?? DEFAULT_USER_AGENT, accept: accept ?? '*/*' },
        });
        const location = res.headers.location;
        if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string' && hop < MAX_REDIRECTS) {
          await res.body.dump();
          current = new URL(location, current);
          continue;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          size += buf.length;
          if (size > maxBytes) {
            res.body.destroy();
            throw new ResourceTooLargeError(`${current.href} is larger than ${maxBytes} bytes`);
          }
          chunks.push(buf);
        }
        const ct = res.headers['content-type'];
        return {
          status: res.statusCode,
          url: current.href,
          contentType: (Array.isArray(ct) ? ct[0] : ct) ?? '',
          body: Buffer.concat(chunks),
        };
      }
    },
    async close() {
      await agent.close();
    },
  };
}

const MAX_REDIRECTS = 5;

/** Sent with robots.txt, sitemap and map discovery requests. */
export const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; WebDataBot/2.0)';
/** The robots.txt agent name: the product token of the scrape engine's User-Agent. */
export const DEFAULT_ROBOTS_AGENT = 'WebDataBot';
