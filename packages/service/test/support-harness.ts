// The support ask tests' stack: the real service (real engines, all routes, the job
// inspector over the jobs module's store) in front of the demo site, a JSON client, job
// waiters, and support ask itself.
import { createServiceApp, type ServiceApp, type ServiceAppOptions } from '../src/app.js';
import type { ServiceContext } from '../src/core/service.js';
import type { TeamConfig } from '../src/core/teams.js';
import { startDemoSite, type DemoSite, type DemoSiteOptions } from '../src/demo-site/index.js';
import { silentLogger } from '../src/http/logger.js';
import { listen } from '../src/http/server.js';
import type { SupportAnswer } from 'webdata-contract';
import { applyFix } from '../src/support/index.js';
import { call as rawCall, team, type ApiAnswer } from './platform-helpers.js';

export { team, applyFix };
export type { ApiAnswer };

export interface SupportStack {
  api: string;
  site: DemoSite;
  app: ServiceApp;
  ctx: ServiceContext;
  call(method: string, path: string, opts?: { key?: string | null; body?: unknown }): Promise<ApiAnswer>;
  close(): Promise<void>;
}

export async function startSupportStack(opts: { teams: TeamConfig[]; config?: ServiceAppOptions['config']; site?: DemoSiteOptions; now?: () => number }): Promise<SupportStack> {
  const site = await startDemoSite(opts.site ?? { pages: 30 });
  const now = opts.now ?? Date.now;
  const app = createServiceApp({ teams: opts.teams, config: opts.config, logger: silentLogger, now });
  if (!app.context.jobInspector) throw new Error('the app does not give support ask a job inspector');
  const server = await listen(app.listener);
  return {
    api: server.url,
    site,
    app,
    ctx: app.context,
    call: (method, path, o = {}) => rawCall(server.url, method, path, { key: 'key-a', ...o }),
    async close() {
      await Promise.all([server.close(), app.close()]);
      await site.close();
    },
  };
}

/** Polls a crawl or batch until it leaves `scraping`; returns the final status body (all pages). */
export async function waitForJob(stack: SupportStack, path: string, key = 'key-a', timeoutMs = 60_000): Promise<Record<string, unknown> & { data: Array<{ metadata: { sourceURL: string } }> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await stack.call('GET', `${path}?limit=1000`, { key });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.text}`);
    if (res.body.status !== 'scraping') return res.body;
    if (Date.now() > deadline) throw new Error(`${path} still running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts a crawl and waits for it; returns its id and final status. */
export async function crawl(stack: SupportStack, body: Record<string, unknown>, key = 'key-a') {
  const res = await stack.call('POST', '/v2/crawl', { key, body });
  if (res.status !== 200) throw new Error(`POST /v2/crawl answered ${res.status}: ${res.text}`);
  const id = res.body.id as string;
  const status = await waitForJob(stack, `/v2/crawl/${id}`, key);
  return { id, status, urls: status.data.map((d) => d.metadata.sourceURL) };
}

export async function ask(stack: SupportStack, body: Record<string, unknown>, key = 'key-a'): Promise<{ status: number; envelope: SupportAnswer }> {
  const res = await stack.call('POST', '/v2/support/ask', { key, body });
  return { status: res.status, envelope: res.body as SupportAnswer };
}

/** The envelope's members per reference 2.5, and the rules they follow. */
export function checkEnvelope(e: SupportAnswer): void {
  const problems: string[] = [];
  if (typeof e.requestId !== 'string' || !e.requestId) problems.push('requestId');
  if (typeof e.answer !== 'string' || e.answer.length < 20) problems.push('answer');
  const sentences = (e.answer.match(/[.!?](?:\s|$)/g) ?? []).length;
  if (sentences < 1 || sentences > 4) problems.push(`answer has ${sentences} sentences`);
  if (!['high', 'medium', 'low'].includes(e.confidence)) problems.push('confidence');
  if (e.fixParameters !== null && (typeof e.fixParameters !== 'object' || Array.isArray(e.fixParameters))) problems.push('fixParameters');
  if (e.validation !== null && (typeof e.validation.tested !== 'boolean' || !['success', 'failure', 'skipped'].includes(e.validation.result) || typeof e.validation.evidence !== 'string')) problems.push('validation');
  if (e.feedback !== null && (typeof e.feedback.blockedBy !== 'string' || !Array.isArray(e.feedback.attempted))) problems.push('feedback');
  if (!Number.isInteger(e.durationMs) || e.durationMs < 0) problems.push('durationMs');
  if (problems.length) throw new Error(`bad envelope (${problems.join(', ')}): ${JSON.stringify(e)}`);
}

export interface FixtureSite {
  url: string;
  /** Requests received so far whose path starts with `prefix` (as they arrive, before any answer). */
  arrived(prefix: string): number;
  close(): Promise<void>;
}

const LATE_TEXT = 'The late widget finished loading: twelve gauges, four dials and a blinking lamp.';
export { LATE_TEXT };

/**
 * Pages the demo site does not have: /late (its text is added by a script 1.5 s after load,
 * with no hint that it needs JavaScript), /limited/ (pages under /limited/p/ answer 429 to a
 * client that fetches them faster than one at a time, 300 ms apart) and /slowsite/ (pages
 * that take 1 s each).
 */
export async function startFixtureSite(): Promise<FixtureSite> {
  const { createServer } = await import('node:http');
  let inFlight = 0;
  let lastStart = 0;
  const timers = new Set<NodeJS.Timeout>();
  const arrivals: string[] = [];
  const html = (body: string) => `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Fixture</title></head><body>${body}</body></html>`;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    arrivals.push(path);
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(body);
    };
    if (path === '/late') {
      return send(200, html(`<div id="root"></div><script>setTimeout(function () { document.getElementById('root').innerHTML = '<main><h1>Gauges</h1><p>${LATE_TEXT}</p><p>${LATE_TEXT}</p><p>${LATE_TEXT}</p></main>'; }, 1500);</script>`));
    }
    if (path === '/limited/' || path === '/limited') {
      return send(200, html(`<main><h1>Limited</h1><ul>${[1, 2, 3, 4, 5, 6].map((n) => `<li><a href="/limited/p/${n}">Page ${n}</a></li>`).join('')}</ul></main>`));
    }
    const limited = /^\/limited\/p\/(\d+)$/.exec(path);
    if (limited) {
      const now = Date.now();
      if (inFlight > 0 || now - lastStart < 300) return send(429, html('<p>Too many requests</p>'), { 'retry-after': '1' });
      inFlight++;
      lastStart = now;
      const timer = setTimeout(() => {
        timers.delete(timer);
        inFlight--;
        send(200, html(`<main><h1>Limited page ${limited[1]}</h1><p>${'Content of a page that is only served to polite clients. '.repeat(8)}</p></main>`));
      }, 50);
      timers.add(timer);
      return;
    }
    if (path === '/slowsite/' || path === '/slowsite') {
      return send(200, html(`<main><h1>Slow site</h1><ul>${Array.from({ length: 20 }, (_, i) => `<li><a href="/slowsite/p/${i + 1}">Slow ${i + 1}</a></li>`).join('')}</ul></main>`));
    }
    if (/^\/slowsite\/p\/\d+$/.test(path)) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        send(200, html(`<main><h1>Slow page</h1><p>${'This page took its time. '.repeat(12)}</p></main>`));
      }, 1000);
      timers.add(timer);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    send(404, html('<p>Not found</p>'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    arrived: (prefix) => arrivals.filter((p) => p.startsWith(prefix)).length,
    close: () => new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
