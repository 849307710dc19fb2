/*
 * POST /v2/search (reference 2.9, 4.12) over the service's own index of scraped pages.
 * - Pricing (billing/prices.ts): every started block of 10 returned results (web, news and
 *   images together) costs 2 credits, or the enterprise rate (anon 2, zdr 10) when higher;
 *   each result scraped for scrapeOptions costs 1 more. A team without credits gets 402;
 *   results it cannot afford to scrape come back without content, with a warning.
 * - enterprise `anon`/`zdr` only for teams enabled for them (403). zdr: nothing of the
 *   search is kept (scraped results are not indexed). anon changes nothing locally.
 * - country and location are accepted; the local index is not geo-targeted.
 * - timeout (ms, default 60000) bounds waiting for indexing still in progress and scraping.
 * - Recorded as activity `search`; the answer's `id` is that record's id.
 */
import { searchRequestSchema, type SearchRequestParsed, DEFAULT_SEARCH_LIMIT, DEFAULT_SEARCH_TIMEOUT_MS } from 'webdata-contract';
import type { SearchResponse } from 'webdata-contract';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import { requireCredits } from '../billing/guard.js';
import { searchCredits } from '../billing/prices.js';
import { forbidden } from '../http/errors.js';
import { newJobId } from '../http/ids.js';
import { parseBody } from '../http/validate.js';
import type { Category } from './categories.js';
import { passes } from './filters.js';
import { parseQuery } from './query.js';
import { rank } from './rank.js';
import { buildResults, countResults, type Hit, type Source } from './results.js';
import { scrapeResults, wantsContent } from './scrape-results.js';
import { SearchIndex } from './store.js';
import { parseTbs } from './tbs.js';


const indexes = new WeakMap<ServiceContext, SearchIndex>();

/**
 * The context's search index: created on first use and set as `ctx.pageIndex` when the
 * context has none, so scrape routes and jobs index into it.
 */
export function searchIndexOf(ctx: ServiceContext): SearchIndex {
  let index = indexes.get(ctx);
  if (!index) {
    index = ctx.pageIndex instanceof SearchIndex ? ctx.pageIndex : new SearchIndex();
    indexes.set(ctx, index);
    ctx.pageIndex ??= index;
  }
  return index;
}

export function registerSearchRoutes(router: Router, ctx: ServiceContext): void {
  const index = searchIndexOf(ctx);
  router.add('POST', '/v2/search', (req) => search(ctx, index, req), { group: 'search' });
}

const kind = <T extends string>(v: T | { type: T }): T => (typeof v === 'string' ? v : v.type);

async function search(ctx: ServiceContext, index: SearchIndex, req: RouteRequest): Promise<RouteResponse<SearchResponse>> {
  const body: SearchRequestParsed = parseBody(searchRequestSchema, req.body);
  const enterprise = [...new Set(body.enterprise ?? [])];
  const notEnabled = enterprise.filter((e) => !req.team.features.searchEnterprise.includes(e));
  if (notEnabled.length > 0) {
    throw forbidden(`Forbidden: search enterprise option${notEnabled.length > 1 ? 's' : ''} ${notEnabled.join(', ')} not enabled for this team; contact support to enable it`);
  }
  requireCredits(ctx.ledger, req.team, searchCredits({ results: 1, enterprise }));

  const createdAt = ctx.now();
  const id = newJobId(createdAt);
  const timeoutMs = body.timeout ?? DEFAULT_SEARCH_TIMEOUT_MS;
  const signal = AbortSignal.any([req.signal, AbortSignal.timeout(timeoutMs)]);
  const warnings: string[] = [];
  if (!(await index.settled(timeoutMs))) warnings.push('The search index was still being built; results may be incomplete.');

  const query = parseQuery(body.query);
  if (query.ignored.length > 0) warnings.push(`Ignored operators with invalid values: ${query.ignored.join(', ')} (expected WxH).`);
  const categories = [...new Set((body.categories ?? []).map(kind))] as Category[];
  const time = parseTbs(body.tbs, ctx.now());
  const filter = { query, includeDomains: body.includeDomains, excludeDomains: body.excludeDomains, categories, time };
  const labels = new Map<number, Category | null>();
  for (const [pageId, page] of index.entries()) {
    const label = passes(page, filter);
    if (label !== undefined) labels.set(pageId, label);
  }
  const ranking = rank(index, query, new Set(labels.keys()), time.sortByDate);
  if (ranking.relatedMissing) warnings.push(`related: ${ranking.relatedMissing} is not in the search index; scrape it first.`);
  const hits: Hit[] = ranking.ids.map((pid) => ({ page: index.byId(pid)!, category: labels.get(pid) ?? null }));

  const sources = new Set<Source>((body.sources ?? ['web']).map(kind));
  const built = buildResults(hits, sources, body.limit ?? DEFAULT_SEARCH_LIMIT, query, body.ignoreInvalidURLs === true);
  if (built.dropped > 0) warnings.push(`${built.dropped} result${built.dropped > 1 ? 's' : ''} with invalid URLs left out (ignoreInvalidURLs).`);

  const results = countResults(built);
  let credits = searchCredits({ results, enterprise });
  if (body.scrapeOptions && wantsContent(body.scrapeOptions)) {
    const lists = [built.web ?? [], built.news ?? []];
    const report = await scrapeResults(ctx, lists, {
      scrapeOptions: body.scrapeOptions as Record<string, unknown>,
      team: req.team,
      budget: Math.max(0, Math.floor(ctx.ledger.remaining(req.team.id) - credits)),
      signal,
      keep: !enterprise.includes('zdr'),
    });
    credits += searchCredits({ results: 0, scrapedPages: report.scraped });
    if (report.failed > 0) warnings.push(`${report.failed} result${report.failed > 1 ? 's' : ''} could not be scraped; see metadata.error.`);
    if (report.unaffordable > 0) warnings.push(`${report.unaffordable} result${report.unaffordable > 1 ? 's were' : ' was'} not scraped: not enough credits.`);
  }
  if (results === 0 && warnings.length === 0) warnings.push('No results found for this query.');

  ctx.activity.record({ id, teamId: req.team.id, endpoint: 'search', createdAt, target: body.query });
  if (credits > 0) ctx.ledger.charge({ teamId: req.team.id, apiKey: req.apiKey, credits, reason: 'search', jobId: id });
  const data: Record<string, unknown> = {};
  for (const s of ['web', 'images', 'news'] as const) if (built[s]) data[s] = built[s];
  return { body: { success: true, data, warning: warnings.length > 0 ? warnings.join(' ') : null, id, creditsUsed: credits } };
}
