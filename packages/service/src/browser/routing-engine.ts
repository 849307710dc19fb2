// Sends each scrape to the engine it needs: the fast HTTP engine for plain pages, the
// browser engine for actions, waitFor, screenshots, mobile, location, profiles, and for
// pages the HTTP engine fetched that ask to be rendered with JavaScript
// (<meta name="webdata:render" content="javascript">).
import { HttpError } from '../core/http-error.js';
import type { ScrapeEngine, ScrapeOutcome } from '../core/scrape.js';

/** Why a request needs the browser, or undefined when the HTTP engine can serve it. */
export function browserReason(options: Record<string, unknown>): string | undefined {
  if (Array.isArray(options.actions) && options.actions.length > 0) return 'actions';
  if (typeof options.waitFor === 'number' && options.waitFor > 0) return 'waitFor';
  const formats = Array.isArray(options.formats) ? options.formats : [];
  if (formats.some((f) => (typeof f === 'string' ? f.split('@')[0] : (f as { type?: string } | null)?.type) === 'screenshot')) return 'screenshot';
  if (options.mobile === true) return 'mobile';
  const location = options.location as { country?: string; languages?: string[] } | undefined;
  if (location && (location.country || (location.languages?.length ?? 0) > 0)) return 'location';
  if (options.profile) return 'profile';
  // blockAds alone keeps the HTTP engine: it loads no subresources, so there is nothing to block.
  return undefined;
}

const RENDER_META = /<meta\s[^>]*name\s*=\s*["']?webdata:render["']?[^>]*content\s*=\s*["']?javascript|<meta\s[^>]*content\s*=\s*["']?javascript["']?[^>]*name\s*=\s*["']?webdata:render/i;

export function asksForJavascript(html: string): boolean {
  return RENDER_META.test(html.slice(0, 64 * 1024));
}

function wantsFormat(options: Record<string, unknown>, name: string): boolean {
  const formats = Array.isArray(options.formats) ? options.formats : ['markdown'];
  return formats.some((f) => (typeof f === 'string' ? f.split('@')[0] : (f as { type?: string } | null)?.type) === name);
}

export function createRoutingScrapeEngine(engines: { http: ScrapeEngine; browser: ScrapeEngine }): ScrapeEngine {
  return {
    async scrape(url, options, ctx): Promise<ScrapeOutcome> {
      if (browserReason(options)) return engines.browser.scrape(url, options, ctx);
      // Ask the HTTP engine for rawHtml too, to see whether the page wants JavaScript.
      const formats = Array.isArray(options.formats) ? options.formats : ['markdown'];
      const keepRaw = wantsFormat(options, 'rawHtml');
      const httpOptions = keepRaw ? options : { ...options, formats: [...formats, 'rawHtml'] };
      let outcome: ScrapeOutcome;
      try {
        outcome = await engines.http.scrape(url, httpOptions, ctx);
      } catch (err) {
        // Whatever the HTTP engine says needs a browser goes to the browser.
        if (err instanceof HttpError && err.code === 'BROWSER_REQUIRED') return engines.browser.scrape(url, options, ctx);
        throw err;
      }
      const raw = outcome.document.rawHtml;
      if (!keepRaw) delete outcome.document.rawHtml;
      outcome.options = options;
      if (raw && asksForJavascript(raw)) {
        try {
          return await engines.browser.scrape(url, options, ctx);
        } catch (err) {
          // Without Chromium the static page is still an answer.
          if (err instanceof HttpError && err.status === 503) return outcome;
          throw err;
        }
      }
      return outcome;
    },
    async close() {
      await Promise.all([engines.http.close(), engines.browser.close()]);
    },
  };
}
