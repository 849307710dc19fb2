// POST/DELETE /v2/scrape/{jobId}/interact (reference 4.1, 4.2, 7.1, 7.2): run code or a
// prompt in the browser session bound to a scrape job; stop it. Also POST /v2/browser/{id}/execute
// (browser-execute.ts), which runs code with the same runners.
import { interactRequestSchema, DEFAULT_INTERACT_TIMEOUT_SEC } from 'webdata-contract';
import type { InteractResult, InteractStopResult } from 'webdata-contract';
import { HttpError } from '../core/http-error.js';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import { assertJobId, parseBody } from '../http/validate.js';
import type { SessionManagerOptions } from '../browser/session-manager.js';
import { InteractSessions, gone } from './interact-sessions.js';
import { llmConfigFromEnv, promptNotConfigured } from './llm-config.js';
import { runPromptAgent } from './prompt-agent.js';
import { createBrowserExecuteHandler } from './browser-execute.js';
import { sessionRunners, type SessionRunners } from './runners.js';

export function registerInteractRoutes(router: Router, ctx: ServiceContext, opts?: SessionManagerOptions): void {
  const sessions = new InteractSessions(ctx, opts);
  const runners = sessionRunners(sessions.manager);
  const group = { group: 'interact' as const };
  router.add('POST', '/v2/browser/:id/execute', createBrowserExecuteHandler(ctx, sessions.manager, runners), { group: 'browser' });

  router.add('POST', '/v2/scrape/:jobId/interact', (req) => interact(ctx, sessions, runners, req), group);
  router.add('DELETE', '/v2/scrape/:jobId/interact', (req) => stopInteraction(ctx, sessions, req), group);
}

/** POST /v2/scrape/{jobId}/interact: code or a prompt in the scrape's session (opened on first use). */
async function interact(ctx: ServiceContext, sessions: InteractSessions, runners: SessionRunners, req: RouteRequest): Promise<RouteResponse<InteractResult>> {
  const jobId = assertJobId(req.params.jobId);
  const body = parseBody(interactRequestSchema, req.body ?? {});
  const record = ctx.scrapes.get(jobId);
  if (!record) throw new HttpError(404, 'Job not found', { code: 'NOT_FOUND' });
  if (record.teamId !== req.team.id) throw new HttpError(403, 'Forbidden: this scrape job belongs to another team', { code: 'FORBIDDEN' });
  const existing = sessions.find(jobId);
  if (existing && !existing.session.active) throw gone();
  if (!existing && (record.zeroDataRetention || !record.options || Object.keys(record.options).length === 0)) {
    throw new HttpError(409, 'Replay context unavailable for this scrape job (no stored options, e.g. zeroDataRetention); rerun the scrape and retry', {
      code: 'REPLAY_CONTEXT_UNAVAILABLE',
    });
  }
  const llm = body.prompt !== undefined ? llmConfigFromEnv() : undefined;
  if (body.prompt !== undefined && !llm) throw promptNotConfigured();

  const bound = await sessions.open(record, req.team, req.apiKey, body.prompt !== undefined);
  const session = bound.session;
  const timeoutSec = body.timeout ?? DEFAULT_INTERACT_TIMEOUT_SEC;
  const urls = sessions.manager.urls(session);
  session.busy++;
  session.touch(ctx.now());
  try {
    const page = await session.currentPage();
    if (body.prompt !== undefined) {
      session.promptUsed = true;
      const signal = AbortSignal.timeout(timeoutSec * 1000);
      try {
        const outcome = await runPromptAgent(llm!, page, body.prompt, signal);
        return { body: { success: true, ...urlsOf(urls), output: outcome.output, stdout: null, result: outcome.snapshot, stderr: null, exitCode: 0, killed: false } };
      } catch (err) {
        if (!signal.aborted) throw err;
        return { body: { success: false, ...urlsOf(urls), output: '', stdout: null, result: null, stderr: null, exitCode: null, killed: true, error: `Prompt timed out after ${timeoutSec} s` } };
      }
    }
    const exec = await runners.execute(session, body.language ?? 'node', body.code!, timeoutSec);
    const success = !exec.killed && exec.exitCode === 0;
    return { body: { success, ...urlsOf(urls), ...exec } };
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (!session.active) throw gone();
    throw new HttpError(502, `Browser service execution failed: ${(err as Error).message.split('\n')[0]}`, { code: 'INTERACT_EXECUTION_FAILED' });
  } finally {
    session.busy--;
    session.touch(ctx.now());
  }
}

/** DELETE /v2/scrape/{jobId}/interact: stops the session and answers what it billed. */
async function stopInteraction(ctx: ServiceContext, sessions: InteractSessions, req: RouteRequest): Promise<RouteResponse<InteractStopResult>> {
  const jobId = assertJobId(req.params.jobId);
  // A stop that arrives while the first interact call is still opening the session (replaying
  // the scrape) waits for it, or the session would be left open until its TTL.
  const bound = await sessions.settled(jobId);
  if (!bound) {
    const record = ctx.scrapes.get(jobId);
    if (record && record.teamId !== req.team.id) throw new HttpError(403, 'Forbidden: this scrape job belongs to another team', { code: 'FORBIDDEN' });
    throw new HttpError(404, 'No browser session found for this scrape job', { code: 'NOT_FOUND' });
  }
  if (bound.session.teamId !== req.team.id) throw new HttpError(403, 'Forbidden: this browser session belongs to another team', { code: 'FORBIDDEN' });
  // Idempotent: stopping a stopped session answers the same result, and bills nothing more.
  const end = await sessions.manager.destroy(bound.session, 'stopped');
  return { body: { success: true, sessionDurationMs: end.sessionDurationMs, creditsBilled: end.creditsBilled } };
}

function urlsOf(urls: { liveViewUrl: string; interactiveLiveViewUrl: string }) {
  return { liveViewUrl: urls.liveViewUrl, interactiveLiveViewUrl: urls.interactiveLiveViewUrl };
}
