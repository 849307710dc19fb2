// Shared by the platform, billing, webhooks and SDK tests: a stub scrape engine and a
// small JSON client for the local service.
import type { PageDocument, ScrapeEngine } from '../src/core/scrape.js';
import type { TeamConfig } from '../src/core/teams.js';
import { HttpError } from '../src/core/http-error.js';

/** Answers every URL with a small document; URLs containing "fail" throw 500, "timeout" 408. */
export function stubScrapeEngine(): ScrapeEngine & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    scrape(url, _options, ctx) {
      calls.push(url);
      if (url.includes('fail')) return Promise.reject(new HttpError(500, 'All scrape engines failed', { code: 'SCRAPE_ALL_ENGINES_FAILED' }));
      if (url.includes('timeout')) return Promise.reject(new HttpError(408, 'Scrape timed out', { code: 'SCRAPE_TIMEOUT' }));
      const document: PageDocument = {
        markdown: `# Page ${url}`,
        metadata: { sourceURL: url, url, statusCode: 200, title: `Page ${url}`, scrapeId: ctx.scrapeId, contentType: 'text/html' },
      };
      return Promise.resolve({ document, discoveredLinks: [], engine: 'http', options: {} });
    },
    close: () => Promise.resolve(),
  };
}

export function team(id: string, overrides: Partial<TeamConfig> = {}): TeamConfig {
  return {
    id,
    apiKeys: [`key-${id}`],
    credits: 1000,
    rateLimits: {},
    concurrency: 4,
    maxBrowserSessions: 2,
    features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
    ...overrides,
  };
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** One request; `body` is sent as JSON unless it is already a string. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== null) headers.authorization = `Bearer ${opts.key ?? 'key-a'}`;
  let payload: string | undefined;
  if (opts.body !== undefined) {
    payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const send = () => fetch(`${baseUrl}${path}`, { method, headers, body: payload });
  let res: Response;
  try {
    res = await send();
  } catch (err) {
    // A kept-alive socket that the server closed while this process's event loop was busy
    // (a loaded machine parsing a 10 MiB page) resets on reuse: a transport race, not an answer.
    // A GET is safe to send once more on a fresh connection.
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (method !== 'GET' || (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET')) throw err;
    res = await send();
  }
  const text = await res.text();
  let body: unknown;
  try { body = JSON.parse(text); } catch { body = undefined; }
  return { status: res.status, headers: res.headers, body, text };
}
