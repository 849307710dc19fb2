// POST /v2/browser/{id}/execute: code in a standalone browser session. Not in the reference,
// but the hosted service's SDK (browserExecute) calls it: { code, language = "bash", timeout }
// → the execution result of 2.3. Same runners and statuses as interact, which registers it
// (interact/routes.ts).
import { z } from 'zod';
import { body, int, DEFAULT_INTERACT_TIMEOUT_SEC, MAX_INTERACT_CODE, MAX_INTERACT_TIMEOUT_SEC, MIN_INTERACT_TIMEOUT_SEC } from 'webdata-contract';
import type { InteractResult } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { RouteHandler, RouteResponse } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import { assertJobId, parseBody } from '../http/validate.js';
import type { BrowserSessionManager } from '../browser/session-manager.js';
import type { SessionRunners } from './runners.js';

export const browserExecuteRequestSchema = body({
  code: z.string().min(1).max(MAX_INTERACT_CODE),
  language: z.enum(['python', 'node', 'bash']).optional(),
  timeout: int.min(MIN_INTERACT_TIMEOUT_SEC).max(MAX_INTERACT_TIMEOUT_SEC).optional(),
});

export function createBrowserExecuteHandler(ctx: ServiceContext, manager: BrowserSessionManager, runners: SessionRunners): RouteHandler {
  return async (req): Promise<RouteResponse<InteractResult>> => {
    const id = assertJobId(req.params.id, 'session id');
    const input = parseBody(browserExecuteRequestSchema, req.body ?? {});
    const session = manager.get(id);
    if (!session || session.kind !== 'browser') throw new HttpError(404, 'Browser session not found', { code: 'NOT_FOUND' });
    if (session.teamId !== req.team.id) throw new HttpError(403, 'Forbidden: this browser session belongs to another team', { code: 'FORBIDDEN' });
    if (!session.active) throw new HttpError(410, 'Browser session already destroyed', { code: 'SESSION_DESTROYED' });
    session.busy++;
    session.touch(ctx.now());
    try {
      const exec = await runners.execute(session, input.language ?? 'bash', input.code, input.timeout ?? DEFAULT_INTERACT_TIMEOUT_SEC);
      return { body: { success: !exec.killed && exec.exitCode === 0, ...manager.urls(session), ...exec } };
    } catch (err) {
      if (err instanceof HttpError) throw err;
      if (!session.active) throw new HttpError(410, 'Browser session already destroyed', { code: 'SESSION_DESTROYED' });
      throw new HttpError(502, `Browser service execution failed: ${(err as Error).message.split('\n')[0]}`, { code: 'INTERACT_EXECUTION_FAILED' });
    } finally {
      session.busy--;
      session.touch(ctx.now());
    }
  };
}
