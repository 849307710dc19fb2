// `scrapeOptions` of a search: each web and news result is scraped for real through the
// context's scrape engine (one scrape per URL, two at a time) and gets the document's
// members plus metadata { title, description, sourceURL, url, statusCode, error? }. Only
// successful scrapes are charged (1 credit each, billing/prices.ts); a failed one keeps its
// item with metadata.error. Scraped pages refresh the search index (not under zdr).
import type { PageDocument } from '../core/scrape.js';
import type { ServiceContext } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import { HttpError } from '../core/http-error.js';
import { newJobId } from '../http/ids.js';
import type { Item } from './results.js';

const CONCURRENCY = 2;
const CONTENT_MEMBERS = ['markdown', 'html', 'rawHtml', 'links', 'images', 'screenshot', 'summary', 'json', 'changeTracking', 'actions', 'audio'] as const;

export interface ScrapeReport {
  scraped: number;
  failed: number;
  /** Results left without content because the team's credits ran out. */
  unaffordable: number;
}

/** Whether scrape options ask for page content at all (formats decide, reference 2.9). */
export function wantsContent(scrapeOptions: Record<string, unknown> | undefined): boolean {
  return Array.isArray(scrapeOptions?.formats) && scrapeOptions.formats.length > 0;
}

function metadataOf(doc: PageDocument | undefined, url: string, error?: string, statusCode?: number): Record<string, unknown> {
  const md = doc?.metadata;
  return {
    ...(md?.title !== undefined ? { title: md.title } : {}),
    ...(md?.description !== undefined ? { description: md.description } : {}),
    sourceURL: md?.sourceURL ?? url,
    url: md?.url ?? url,
    statusCode: md?.statusCode ?? statusCode ?? 0,
    ...(error ?? md?.error ? { error: error ?? md?.error } : {}),
  };
}

export async function scrapeResults(
  ctx: ServiceContext,
  lists: Item[][],
  opts: { scrapeOptions: Record<string, unknown>; team: TeamConfig; budget: number; signal: AbortSignal; keep: boolean },
): Promise<ScrapeReport> {
  const byUrl = new Map<string, Item[]>();
  for (const list of lists) for (const item of list) byUrl.set(item.url, [...(byUrl.get(item.url) ?? []), item]);
  const urls = [...byUrl.keys()];
  const report: ScrapeReport = { scraped: 0, failed: 0, unaffordable: Math.max(0, urls.length - opts.budget) };
  const queue = urls.slice(0, Math.max(0, opts.budget));

  const apply = (url: string, members: Record<string, unknown>) => {
    for (const item of byUrl.get(url) ?? []) Object.assign(item, members);
  };
  const worker = async () => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      try {
        opts.signal.throwIfAborted();
        const outcome = await ctx.scrapeEngine.scrape(url, { ...opts.scrapeOptions, url }, { scrapeId: newJobId(ctx.now()), team: opts.team, signal: opts.signal });
        const doc = outcome.document;
        const fields = doc as unknown as Record<string, unknown>;
        const members: Record<string, unknown> = {};
        for (const key of CONTENT_MEMBERS) if (fields[key] !== undefined) members[key] = fields[key];
        members.metadata = metadataOf(doc, url);
        apply(url, members);
        report.scraped++;
        if (opts.keep) ctx.pageIndex?.index(doc);
      } catch (err) {
        report.failed++;
        const status = err instanceof HttpError ? err.status : opts.signal.aborted ? 408 : 500;
        const message = opts.signal.aborted ? 'Search timeout reached before this result was scraped' : err instanceof Error ? err.message : String(err);
        apply(url, { metadata: metadataOf(undefined, url, message, status) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, () => worker()));
  return report;
}
