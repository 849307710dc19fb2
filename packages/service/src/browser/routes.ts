// POST/GET/DELETE /v2/browser (reference 4.9-4.11): standalone browser sessions.
import { browserCreateRequestSchema, browserDeleteRequestSchema, browserListQuerySchema, DEFAULT_BROWSER_TTL_SEC, DEFAULT_BROWSER_ACTIVITY_TTL_SEC } from 'webdata-contract';
import type { BrowserCreateResponse, BrowserDeleteResponse, BrowserListResponse } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import { assertJobId, parseBody, parseQuery } from '../http/validate.js';
import { browserSessions, type SessionManagerOptions } from './session-manager.js';
import { sessionView } from './session-view.js';

export function registerBrowserRoutes(router: Router, ctx: ServiceContext, opts?: SessionManagerOptions): void {
  const manager = browserSessions(ctx, opts);
  const group = { group: 'browser' as const };

  router.add('POST', '/v2/browser', async (req): Promise<RouteResponse<BrowserCreateResponse>> => {
    // Only an absent body means "all defaults": a JSON `null` is not an object and is refused.
    const body = parseBody(browserCreateRequestSchema, req.body === undefined ? {} : req.body);
    const ttlSec = body.ttl ?? DEFAULT_BROWSER_TTL_SEC;
    const session = await manager.create(req.team, req.apiKey, {
      kind: 'browser',
      ttlSec,
      activityTtlSec: body.activityTtl ?? DEFAULT_BROWSER_ACTIVITY_TTL_SEC,
      streamWebView: body.streamWebView ?? true,
      profile: body.profile ? { name: body.profile.name, saveChanges: body.profile.saveChanges ?? true } : undefined,
    });
    ctx.activity.record({ id: session.id, teamId: req.team.id, endpoint: 'browser', createdAt: session.createdAt, target: 'browser session' });
    return {
      body: {
        success: true,
        id: session.id,
        ...manager.urls(session),
        expiresAt: new Date(session.expiresAt).toISOString(),
      },
    };
  }, group);

  router.add('GET', '/v2/browser', (req): RouteResponse<BrowserListResponse> => {
    const query = parseQuery(browserListQuerySchema, req.query);
    const sessions = manager
      .list(req.team.id, 'browser', query.status)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((s) => sessionView(s, manager.urls(s)));
    return { body: { success: true, sessions } };
  }, group);

  const destroy = async (req: RouteRequest, id: string): Promise<RouteResponse<BrowserDeleteResponse>> => {
    assertJobId(id, 'session id');
    const session = manager.get(id);
    if (!session || session.kind !== 'browser') throw new HttpError(404, 'Browser session not found', { code: 'NOT_FOUND' });
    if (session.teamId !== req.team.id) throw new HttpError(403, 'Forbidden: this browser session belongs to another team', { code: 'FORBIDDEN' });
    const end = await manager.destroy(session, 'deleted');
    return { body: { success: true, sessionDurationMs: end.sessionDurationMs, creditsBilled: end.creditsBilled } };
  };

  router.add('DELETE', '/v2/browser/:id', (req) => destroy(req, req.params.id), group);
  router.add('DELETE', '/v2/browser', (req) => destroy(req, parseBody(browserDeleteRequestSchema, req.body ?? {}).id), group);
}
