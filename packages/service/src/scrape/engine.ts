// The HTTP scrape engine (ScrapeEngine of core/scrape.ts): options → cache → guarded fetch →
// conversion. Failures are HttpErrors the platform can answer with: 400 for options this engine
// cannot honour, 403 for refused destinations, 404 for cache-only misses, 408 on timeout, 500
// when the page cannot be fetched at all. Non-2xx pages are documents, not failures.
import { HttpError } from '../core/http-error.js';
import type { PageDocument, ScrapeEngine, ScrapeOutcome, ScrapeRequestContext } from '../core/scrape.js';
import { ScrapeCache, cacheKey, type CacheLimits, type CachedPage } from './cache.js';
import { acquireConvertPool, releaseConvertPool, type ConvertPool } from './convert-pool.js';
import { convertPage } from './convert.js';
import { checkDestination } from './destination.js';
import { PageFetcher } from './fetch.js';
import { normalizeOptions, type NormalizedOptions } from './options.js';
import { ScrapeAbort } from './scrape-abort.js';

export const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; WebDataBot/2.0; +https://github.com/webdata-temporal)';
export const MOBILE_USER_AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) '
  + 'Version/17.4 Mobile/15E148 Safari/604.1 WebDataBot/2.0';

export interface HttpScrapeEngineOptions {
  /** Fetch non-loopback destinations too (default false: loopback only). */
  allowNonLoopback?: boolean;
  userAgent?: string;
  mobileUserAgent?: string;
  /** Used when a request has no `timeout` (reference outline: 60000). */
  defaultTimeoutMs?: number;
  /** Used when a request has no `maxAge` (reference outline: 172800000, two days). */
  defaultMaxAgeMs?: number;
  maxBodyBytes?: number;
  maxRedirects?: number;
  /** Cache bounds; false disables the cache (every maxAge read misses, minAge always 404s). */
  cache?: Partial<CacheLimits> | false;
  now?: () => number;
  /** Convert HTML in the process's worker-thread pool (default true; false: in the event loop). */
  convertInThreads?: boolean;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${typeof code === 'string' ? `${code} ` : ''}${err.message}${cause}`;
}

export class HttpScrapeEngine implements ScrapeEngine {
  private readonly fetcher: PageFetcher;
  private readonly cache: ScrapeCache | null;
  private readonly now: () => number;
  private readonly pool: ConvertPool | undefined;
  private closed = false;

  constructor(private readonly config: HttpScrapeEngineOptions = {}) {
    this.fetcher = new PageFetcher({
      allowNonLoopback: config.allowNonLoopback ?? false,
      maxBodyBytes: config.maxBodyBytes ?? 32 * 1024 * 1024,
      maxRedirects: config.maxRedirects ?? 10,
    });
    this.cache = config.cache === false
      ? null
      : new ScrapeCache({ maxEntries: config.cache?.maxEntries ?? 5000, maxBytes: config.cache?.maxBytes ?? 256 * 1024 * 1024 });
    this.now = config.now ?? Date.now;
    this.pool = config.convertInThreads === false ? undefined : acquireConvertPool();
  }

  async scrape(url: string, options: Record<string, unknown>, ctx: ScrapeRequestContext): Promise<ScrapeOutcome> {
    if (this.closed) throw new HttpError(503, 'The scrape engine is shut down', { code: 'SCRAPE_ENGINE_CLOSED' });
    const opts = normalizeOptions(options, {
      timeoutMs: this.config.defaultTimeoutMs ?? 60_000,
      maxAgeMs: this.config.defaultMaxAgeMs ?? 172_800_000,
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new HttpError(400, `Invalid URL: ${url}`, { code: 'BAD_REQUEST' });
    }
    checkDestination(target, this.config.allowNonLoopback ?? false);

    // Without a cache no key is looked up or stored: not worth its JSON per page.
    const key = this.cache ? cacheKey(target.href, opts) : '';
    const cached = this.cachedCopy(key, opts);
    if (cached) return this.outcome(this.fromCache(cached, url, ctx.scrapeId), cached.discoveredLinks, options);

    // One cancellation for the fetch and the conversion: the caller's or our deadline. (Built by
    // hand: the timer is cleared at once, and nothing stays attached to a job's signal.)
    const cancel = new ScrapeAbort();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      cancel.abort(new Error(`timed out after ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    const onCancel = () => cancel.abort(ctx.signal?.reason);
    if (ctx.signal?.aborted) onCancel();
    else ctx.signal?.addEventListener('abort', onCancel, { once: true });
    try {
      const page = await this.fetcher.fetch(target, {
        headers: this.requestHeaders(opts), signal: cancel, skipTlsVerification: opts.skipTlsVerification,
      });
      const converted = await convertPage(page, { sourceURL: url, scrapeId: ctx.scrapeId, signal: cancel }, opts, this.pool);
      const status = converted.document.metadata.statusCode;
      if (this.cache && opts.storeInCache && status >= 200 && status < 300) {
        const document = { ...converted.document, metadata: { ...converted.document.metadata } };
        this.cache.set(key, { document, discoveredLinks: converted.discoveredLinks, storedAt: this.now() });
      }
      return this.outcome(converted.document, converted.discoveredLinks, options);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      if (ctx.signal?.aborted) throw ctx.signal.reason ?? err;
      if (timedOut) throw new HttpError(408, `Scrape timed out after ${opts.timeoutMs} ms: ${url}`, { code: 'SCRAPE_TIMEOUT' });
      throw new HttpError(500, `Failed to scrape ${url}: ${describe(err)}`, { code: 'SCRAPE_ALL_ENGINES_FAILED' });
    } finally {
      clearTimeout(timer);
      ctx.signal?.removeEventListener('abort', onCancel);
    }
  }

  /** The cached copy this request may use; throws 404 when the request may only use the cache. */
  private cachedCopy(key: string, opts: NormalizedOptions): CachedPage | undefined {
    const cacheOnly = opts.lockdown || opts.minAge !== undefined;
    if (!cacheOnly && (opts.maxAge <= 0 || opts.zeroDataRetention)) return undefined;
    const cached = this.cache?.get(key);
    const age = cached ? this.now() - cached.storedAt : Infinity;
    if (cacheOnly) {
      if (cached && (opts.lockdown || age >= opts.minAge!)) return cached;
      if (opts.lockdown) {
        throw new HttpError(404, 'No cached data is available for this request in lockdown mode, which never fetches pages', {
          code: 'SCRAPE_LOCKDOWN_CACHE_MISS',
        });
      }
      throw new HttpError(404, `No cached data at least ${opts.minAge} ms old is available for this URL and these options`, {
        code: 'SCRAPE_NO_CACHED_DATA',
      });
    }
    return cached && age <= opts.maxAge ? cached : undefined;
  }

  private fromCache(cached: CachedPage, sourceURL: string, scrapeId: string): PageDocument {
    const d = cached.document;
    return {
      ...d,
      ...(d.links ? { links: [...d.links] } : {}),
      ...(d.images ? { images: [...d.images] } : {}),
      metadata: { ...d.metadata, sourceURL, scrapeId, cacheState: 'hit', cachedAt: new Date(cached.storedAt).toISOString() },
    };
  }

  private outcome(document: PageDocument, discoveredLinks: string[], options: Record<string, unknown>): ScrapeOutcome {
    return { document, discoveredLinks: [...discoveredLinks], engine: 'http', options: { ...options } };
  }

  private requestHeaders(opts: NormalizedOptions): Record<string, string> {
    return {
      'user-agent': opts.mobile
        ? this.config.mobileUserAgent ?? MOBILE_USER_AGENT
        : this.config.userAgent ?? DEFAULT_USER_AGENT,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'accept-language': 'en-US,en;q=0.9',
      'accept-encoding': 'gzip, deflate, br',
      ...opts.headers,
    };
  }

  /** Drops every cached page. */
  clearCache(): void {
    this.cache?.clear();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache?.clear();
    await Promise.all([this.fetcher.close(), this.pool ? releaseConvertPool(this.pool) : undefined]);
  }
}

export function createHttpScrapeEngine(options: HttpScrapeEngineOptions = {}): HttpScrapeEngine {
  return new HttpScrapeEngine(options);
}
