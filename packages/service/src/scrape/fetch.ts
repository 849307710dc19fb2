// One page fetch with undici: redirects followed by hand so every hop passes the destination
// check, a byte cap on the body, and content-encoding undone. Timeouts and cancellation come in
// as one AbortSignal; the engine decides what an abort means.
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { HttpError } from '../core/http-error.js';
import { checkDestination, createLookup } from './destination.js';
import type { Cancellation } from './scrape-abort.js';

export interface FetchedPage {
  status: number;
  /** Final URL after redirects. */
  url: string;
  headers: Record<string, string>;
  contentType: string;
  body: Buffer;
}

export interface FetchInit {
  headers: Record<string, string>;
  signal: Cancellation;
  skipTlsVerification: boolean;
}

export interface PageFetcherOptions {
  allowNonLoopback: boolean;
  maxBodyBytes: number;
  maxRedirects: number;
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      return inflateSync(body);
    case 'br':
      return brotliDecompressSync(body);
    default:
      return body;
  }
}

function isResetSocket(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET';
}

/** One hop's answer: a redirect to follow, or the page. */
type Hop = { redirect: string } | { page: FetchedPage };

export class PageFetcher {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly options: PageFetcherOptions) {}

  /**
   * The pooled agent, or (fresh) one that never reuses a connection: a retry after a reset
   * socket goes there, so it cannot meet a second stale kept-alive socket of the pool.
   */
  private agent(skipTlsVerification: boolean, fresh = false): Agent {
    const key = `${skipTlsVerification}:${fresh}`;
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new Agent({
        connect: { lookup: createLookup(this.options.allowNonLoopback), rejectUnauthorized: !skipTlsVerification },
        keepAliveTimeout: 4_000,
        ...(fresh ? { pipelining: 0 } : {}),
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  async fetch(url: URL, init: FetchInit): Promise<FetchedPage> {
    let current = url;
    for (let hop = 0; ; hop++) {
      checkDestination(current, this.options.allowNonLoopback);
      // A kept-alive socket the site closed just as it was reused (its idle timer fired first,
      // e.g. on a busy machine), before or while the answer was read: a GET is safe to send
      // once more, on a connection of its own.
      const target = current;
      const answer = await this.get(target, init, false).catch((err: unknown) => {
        if (!isResetSocket(err) || init.signal?.aborted) throw err;
        return this.get(target, init, true);
      });
      if ('page' in answer) return answer.page;
      if (hop >= this.options.maxRedirects) {
        throw new HttpError(500, `Too many redirects (more than ${this.options.maxRedirects}) starting at ${url.href}`, {
          code: 'SCRAPE_TOO_MANY_REDIRECTS',
        });
      }
      current = new URL(answer.redirect, current);
    }
  }

  private async get(current: URL, init: FetchInit, fresh: boolean): Promise<Hop> {
    const res = await request(current, {
      method: 'GET',
      headers: init.headers,
      dispatcher: this.agent(init.skipTlsVerification, fresh),
      signal: init.signal,
    });
    const headers = flatten(res.headers);
    if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304 && headers.location) {
      await res.body.dump();
      return { redirect: headers.location };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > this.options.maxBodyBytes) {
        res.body.destroy();
        throw new HttpError(500, `The page is larger than ${this.options.maxBodyBytes} bytes: ${current.href}`, {
          code: 'SCRAPE_PAGE_TOO_LARGE',
        });
      }
      chunks.push(chunk as Buffer);
    }
    const body = decode(Buffer.concat(chunks), headers['content-encoding']);
    return { page: { status: res.statusCode, url: current.href, headers, contentType: headers['content-type'] ?? '', body } };
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close()));
  }
}
