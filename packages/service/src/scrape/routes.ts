// POST /v2/scrape and GET /v2/scrape/{id}.
import { scrapeRequestSchema } from 'webdata-contract';
import type { ScrapeResponse, ScrapeRetrievalResponse } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ScrapeOutcome, ScrapeRecord } from '../core/scrape.js';
import type { ServiceContext } from '../core/service.js';
import { requireCredits } from '../billing/guard.js';
import { scrapeCredits } from '../billing/prices.js';
import { forbidden, notFound } from '../http/errors.js';
import { newJobId } from '../http/ids.js';
import { assertJobId, assertOwner, parseBody } from '../http/validate.js';

export function registerScrapeRoutes(router: Router, ctx: ServiceContext): void {
  router.add('POST', '/v2/scrape', (req) => scrape(ctx, req), { group: 'scrape' });
  router.add('GET', '/v2/scrape/:id', (req) => getScrape(ctx, req), { group: 'scrape' });
}

async function scrape(ctx: ServiceContext, req: RouteRequest): Promise<RouteResponse<ScrapeResponse>> {
  const { origin: _origin, integration: _integration, ...options } = parseBody(scrapeRequestSchema, req.body);
  const zeroDataRetention = options.zeroDataRetention === true;
  if (zeroDataRetention && !req.team.features.zeroDataRetention) {
    throw forbidden('Forbidden: zeroDataRetention is not enabled for this team; contact support to enable it');
  }
  const credits = scrapeCredits(1);
  requireCredits(ctx.ledger, req.team, credits);

  const createdAt = ctx.now();
  const scrapeId = newJobId(createdAt);
  ctx.activity.record({ id: scrapeId, teamId: req.team.id, endpoint: 'scrape', createdAt, target: options.url });
  const record = {
    id: scrapeId,
    teamId: req.team.id,
    apiKey: req.apiKey,
    url: options.url,
    options: options as Record<string, unknown>,
    createdAt,
    expiresAt: createdAt + ctx.config.jobTtlMs,
    zeroDataRetention,
  };

  let outcome: ScrapeOutcome;
  try {
    outcome = await ctx.scrapeEngine.scrape(options.url, options, { scrapeId, team: req.team, signal: req.signal });
  } catch (err) {
    // Failures are kept too: support diagnosis reads them.
    ctx.scrapes.put(retained({
      ...record,
      document: null,
      error: err instanceof Error ? err.message : String(err),
      ...(err instanceof HttpError && { errorStatus: err.status, errorCode: err.code }),
    }));
    throw err;
  }

  ctx.ledger.charge({ teamId: req.team.id, apiKey: req.apiKey, credits, reason: 'scrape', jobId: scrapeId });
  const document = { ...outcome.document, metadata: { ...outcome.document.metadata, scrapeId, creditsUsed: credits } };
  ctx.scrapes.put(retained({ ...record, document }));
  if (isPublicFetch(options)) ctx.pageIndex?.index(document);
  return { body: { success: true, data: document } };
}

/**
 * What is kept of a scrape: everything, or for zeroDataRetention a content-free marker, so
 * interact can answer 409 (replay context unavailable) and GET a 404 that says why.
 */
function retained(record: ScrapeRecord): ScrapeRecord {
  if (!record.zeroDataRetention) return record;
  return { id: record.id, teamId: record.teamId, apiKey: record.apiKey, url: '', options: {}, document: null, createdAt: record.createdAt, expiresAt: record.expiresAt, zeroDataRetention: true };
}

/** Only pages fetched without ZDR, request headers or a profile may be searched by anyone. */
function isPublicFetch(options: { zeroDataRetention?: boolean; headers?: Record<string, string>; profile?: unknown }): boolean {
  return options.zeroDataRetention !== true && Object.keys(options.headers ?? {}).length === 0 && options.profile === undefined;
}

function getScrape(ctx: ServiceContext, req: RouteRequest): RouteResponse<ScrapeRetrievalResponse> {
  const id = assertJobId(req.params.id);
  const record = ctx.scrapes.get(id);
  if (!record) throw notFound();
  assertOwner(record.teamId, req.team);
  if (record.zeroDataRetention) throw notFound('Job not found: zeroDataRetention scrapes keep no data');
  if (record.document) return { body: { success: true, data: record.document } };
  return { body: { success: false, error: record.error ?? 'Scrape failed', data: null } };
}

