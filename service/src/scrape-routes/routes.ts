// POST /v2/scrape and GET /v2/scrape/{id}.
import { scrapeRequestSchema } from '../../../src/api/schemas/index.js';
import type { RouteRequest, RouteResponse, Router, ScrapeOutcome, ServiceContext } from '../core/contract.js';
import { requireCredits } from '../billing/guard.js';
import { scrapeCredits } from '../billing/prices.js';
import { forbidden, notFound } from '../http/errors.js';
import { newJobId } from '../http/ids.js';
import { assertJobId, assertOwner, parseBody } from '../http/validate.js';

export function registerScrapeRoutes(router: Router, ctx: ServiceContext): void {
  router.add('POST', '/v2/scrape', (req) => scrape(ctx, req), { group: 'scrape' });
  router.add('GET', '/v2/scrape/:id', (req) => getScrape(ctx, req), { group: 'scrape' });
}

async function scrape(ctx: ServiceContext, req: RouteRequest): Promise<RouteResponse> {
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
    if (!zeroDataRetention) ctx.scrapes.put({ ...record, document: null, error: err instanceof Error ? err.message : String(err) });
    throw err;
  }

  ctx.ledger.charge({ teamId: req.team.id, apiKey: req.apiKey, credits, reason: 'scrape', jobId: scrapeId });
  const document = { ...outcome.document, metadata: { ...outcome.document.metadata, scrapeId, creditsUsed: credits } };
  if (!zeroDataRetention) ctx.scrapes.put({ ...record, document });
  return { body: { success: true, data: document } };
}

function getScrape(ctx: ServiceContext, req: RouteRequest): RouteResponse {
  const id = assertJobId(req.params.id);
  const record = ctx.scrapes.get(id);
  if (!record) throw notFound();
  assertOwner(record.teamId, req.team);
  if (record.document) return { body: { success: true, data: record.document } };
  return { body: { success: false, error: record.error ?? 'Scrape failed', data: null } };
}

