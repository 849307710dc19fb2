// One real scrape through the service's engine, to test a fix: not charged, not recorded,
// never served from the engine's cache (maxAge 0), bounded by the support budget.
import { HttpError } from '../../core/http-error.js';
import { newJobId } from '../../http/ids.js';
import type { Case } from '../types.js';

export interface ScrapeProbe {
  ok: boolean;
  ms: number;
  /** HTTP status of a failed scrape (408 timeout...). */
  status?: number;
  code?: string;
  error?: string;
  /** The page's own status code when the scrape succeeded. */
  statusCode?: number;
  contentChars: number;
  engine?: string;
}

export async function probeScrape(c: Case, url: string, options: Record<string, unknown>, maxMs: number): Promise<ScrapeProbe> {
  const started = Date.now();
  const signal = c.timeBudget.within(maxMs);
  try {
    const outcome = await c.ctx.scrapeEngine.scrape(
      url,
      { ...options, url, maxAge: 0, storeInCache: false },
      { scrapeId: newJobId(c.ctx.now()), team: c.team, signal },
    );
    const doc = outcome.document;
    return {
      ok: true,
      ms: Date.now() - started,
      statusCode: doc.metadata.statusCode,
      contentChars: (doc.markdown ?? doc.html ?? doc.rawHtml ?? '').trim().length,
      engine: outcome.engine,
    };
  } catch (err) {
    const ms = Date.now() - started;
    if (err instanceof HttpError) return { ok: false, ms, status: err.status, code: err.code, error: err.message, contentChars: 0 };
    return { ok: false, ms, status: signal.aborted ? 408 : 500, error: err instanceof Error ? err.message : String(err), contentChars: 0 };
  }
}
