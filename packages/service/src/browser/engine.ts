// The browser scrape engine: renders pages in Chromium (one shared browser, a bounded pool
// of contexts) for what the HTTP engine cannot do: actions, waitFor, screenshots, mobile and
// location emulation, ad blocking, profiles and JavaScript-rendered pages.
import type { BrowserContext, Page } from 'playwright-core';
import { HttpError } from '../core/http-error.js';
import type { ScrapeEngine, ScrapeOutcome, ScrapeRequestContext } from '../core/scrape.js';
import { checkDestination, isLocalhostName, isLoopbackAddress } from '../scrape/destination.js';
import { checkActionLimits, runActions, takeScreenshot, type ScrapeAction, type ScreenshotOptions } from './actions.js';
import { isAdHost } from './adblock.js';
import { BrowserPool } from './browser-pool.js';
import { browserNotConfigured, findChromium } from './chromium.js';
import { convertRendered } from './convert.js';
import { contextOptionsFor } from './emulation.js';
import { profileStore, type StorageState } from './profiles.js';

export interface BrowserScrapeEngineOptions {
  chromiumPath?: string;
  /** Browser contexts rendering at once (default 2: the machine has 2 cores). */
  maxContexts?: number;
  /** Fetch (and let pages load from) non-loopback hosts; false like the HTTP engine. */
  allowNonLoopback?: boolean;
  profilesDir?: string;
}

const PLAIN_FORMATS = new Set(['markdown', 'html', 'rawHtml', 'links', 'images']);
const MODEL_FORMATS = new Set(['json', 'summary', 'changeTracking']);

interface Plan {
  formats: Set<string>;
  screenshot?: ScreenshotOptions;
  actions: ScrapeAction[];
  waitFor: number;
  timeoutMs: number;
}

function plan(options: Record<string, unknown>): Plan {
  const formats = new Set<string>();
  let screenshot: ScreenshotOptions | undefined;
  for (const f of (options.formats as unknown[] | undefined) ?? ['markdown']) {
    const [name, modifier] = typeof f === 'string' ? f.split('@') : [(f as { type: string }).type];
    if (PLAIN_FORMATS.has(name)) formats.add(name);
    else if (name === 'screenshot') {
      const o = typeof f === 'object' ? (f as ScreenshotOptions) : {};
      screenshot = { fullPage: o.fullPage ?? modifier === 'fullPage', quality: o.quality, viewport: o.viewport };
    } else if (MODEL_FORMATS.has(name)) {
      throw new HttpError(400, `The "${name}" format needs an AI model, which is not configured in this service`, { code: 'MODEL_REQUIRED' });
    } else throw new HttpError(400, `formats: unknown format "${name}"`, { code: 'BAD_REQUEST' });
  }
  const actions = (options.actions as ScrapeAction[] | undefined) ?? [];
  const waitFor = typeof options.waitFor === 'number' ? options.waitFor : 0;
  checkActionLimits(actions, waitFor);
  const timeoutMs = typeof options.timeout === 'number' ? options.timeout : 60_000;
  return { formats, screenshot, actions, waitFor, timeoutMs };
}

function loopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return isLocalhostName(h) || isLoopbackAddress(h);
}

export interface BrowserScrapeEngine extends ScrapeEngine {
  /** Contexts in use right now. */
  busy(): number;
  /** Closes the shared browser as a crash would; the next scrape launches a new one. */
  dropBrowser(): Promise<void>;
}

export function createBrowserScrapeEngine(opts: BrowserScrapeEngineOptions = {}): BrowserScrapeEngine {
  let pool: BrowserPool | undefined;
  const profiles = profileStore(opts.profilesDir);
  const getPool = () => {
    const path = findChromium(opts.chromiumPath);
    if (!path) throw browserNotConfigured();
    pool ??= new BrowserPool(path, Math.max(1, opts.maxContexts ?? 2));
    return pool;
  };

  async function render(context: BrowserContext, url: string, options: Record<string, unknown>, p: Plan, ctx: ScrapeRequestContext): Promise<ScrapeOutcome> {
    const blockAds = options.blockAds !== false;
    await context.route('**/*', (route) => {
      let host = '';
      try {
        host = new URL(route.request().url()).hostname;
      } catch {
        return route.continue();
      }
      const scheme = route.request().url().split(':')[0];
      if (scheme !== 'http' && scheme !== 'https') return route.continue();
      if (!opts.allowNonLoopback && !loopback(host)) return route.abort('blockedbyclient');
      if (blockAds && isAdHost(host)) return route.abort('blockedbyclient');
      return route.continue();
    });
    const page: Page = await context.newPage();
    page.setDefaultTimeout(Math.min(p.timeoutMs, 30_000));
    let response;
    try {
      response = await page.goto(url, { timeout: p.timeoutMs, waitUntil: 'load' });
    } catch (err) {
      const message = (err as Error).message.split('\n')[0];
      if (/Timeout/i.test(message)) throw new HttpError(408, `Scrape timed out after ${p.timeoutMs} ms`, { code: 'SCRAPE_TIMEOUT' });
      throw new HttpError(500, `All scraping engines failed: ${message}`, { code: 'SCRAPE_ALL_ENGINES_FAILED' });
    }
    if (p.waitFor > 0) await page.waitForTimeout(p.waitFor);
    const actionResults = p.actions.length ? await runActions(page, p.actions, Math.min(p.timeoutMs, 30_000)) : undefined;
    const screenshot = p.screenshot ? await takeScreenshot(page, p.screenshot) : undefined;
    const statusCode = response?.status() ?? 200;
    const contentType = response?.headers()['content-type'];
    const html = await page.content();
    // The DOM after rendering and actions, converted exactly as the HTTP engine converts HTML.
    const converted = await convertRendered({
      html,
      url: page.url(),
      sourceURL: url,
      statusCode,
      contentType,
      headers: response?.headers(),
      scrapeId: ctx.scrapeId,
      options,
    });
    const document = converted.document;
    if (screenshot) document.screenshot = screenshot;
    if (actionResults) document.actions = actionResults;
    return { document, discoveredLinks: converted.discoveredLinks, engine: 'browser', options };
  }

  return {
    async scrape(url, options, ctx) {
      const target = new URL(url);
      checkDestination(target, opts.allowNonLoopback ?? false);
      const p = plan(options);
      const pool = getPool();
      const profile = options.profile as { name: string; saveChanges?: boolean } | undefined;
      const saving = profile && profile.saveChanges !== false;
      if (saving) profiles.acquireSaver(ctx.team.id, profile.name, ctx.scrapeId);
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), p.timeoutMs + 5_000);
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout.signal]) : timeout.signal;
      try {
        const storageState = profile ? await profiles.load(ctx.team.id, profile.name) : undefined;
        const contextOptions = {
          ...contextOptionsFor({
            mobile: options.mobile === true,
            location: options.location as { country?: string; languages?: string[] } | undefined,
            headers: options.headers as Record<string, string> | undefined,
            skipTlsVerification: options.skipTlsVerification as boolean | undefined,
          }),
          ...(storageState ? { storageState: storageState as never } : {}),
        };
        return await pool.withContext(contextOptions, async (context) => {
          const work = render(context, url, options, p, ctx);
          const aborted = new Promise<never>((_, reject) => {
            const fail = () => reject(new HttpError(408, `Scrape timed out after ${p.timeoutMs} ms`, { code: 'SCRAPE_TIMEOUT' }));
            if (signal.aborted) fail();
            else signal.addEventListener('abort', fail, { once: true });
          });
          work.catch(() => undefined);
          const outcome = await Promise.race([work, aborted]);
          if (saving) await profiles.save(ctx.team.id, profile.name, (await context.storageState()) as StorageState);
          return outcome;
        }, signal);
      } finally {
        clearTimeout(timer);
        if (saving) profiles.releaseSaver(ctx.team.id, profile.name, ctx.scrapeId);
      }
    },
    busy: () => pool?.busy ?? 0,
    dropBrowser: async () => pool?.dropBrowser(),
    async close() {
      await pool?.close();
    },
  };
}
