// Team endpoints: credit usage, historical credit usage, activity listing, queue status.
// (Token usage is answered by agent/, which keeps the token records.)
import { activityQuerySchema, historicalCreditUsageQuerySchema, DEFAULT_ACTIVITY_LIMIT } from 'webdata-contract';
import type { ActivityResponse, CreditUsageResponse, HistoricalCreditUsageResponse, QueueStatusResponse } from 'webdata-contract';
import { queueStatusOf } from '../jobs/index.js';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import { parseQuery } from '../http/validate.js';

export function registerTeamRoutes(router: Router, ctx: ServiceContext): void {
  router.add('GET', '/v2/team/credit-usage', (req) => creditUsage(ctx, req), { group: 'team' });
  router.add('GET', '/v2/team/credit-usage/historical', (req) => historicalUsage(ctx, req), { group: 'team' });
  router.add('GET', '/v2/team/activity', (req) => activity(ctx, req), { group: 'team' });
  router.add('GET', '/v2/team/queue-status', (req): RouteResponse<QueueStatusResponse> => ({
    body: { success: true, ...queueStatusOf(ctx, req.team) },
  }), { group: 'team' });
}

function creditUsage(ctx: ServiceContext, req: RouteRequest): RouteResponse<CreditUsageResponse> {
  return { body: { success: true, data: ctx.ledger.usage(req.team.id) } };
}

function historicalUsage(ctx: ServiceContext, req: RouteRequest): RouteResponse<HistoricalCreditUsageResponse> {
  const query = parseQuery(historicalCreditUsageQuerySchema, req.query);
  return { body: { success: true, periods: ctx.ledger.periods(req.team.id, query.byApiKey ?? false) } };
}

function activity(ctx: ServiceContext, req: RouteRequest): RouteResponse<ActivityResponse> {
  const query = parseQuery(activityQuerySchema, req.query);
  const page = ctx.activity.list(req.team.id, {
    endpoint: query.endpoint,
    limit: query.limit ?? DEFAULT_ACTIVITY_LIMIT,
    cursor: query.cursor,
  });
  return {
    body: {
      success: true,
      data: page.data.map((r) => ({
        id: r.id,
        endpoint: r.endpoint,
        api_version: 'v2',
        created_at: new Date(r.createdAt).toISOString(),
        target: r.target,
      })),
      cursor: page.cursor,
      has_more: page.hasMore,
    },
  };
}
