/*
 * POST /v2/support/ask (reference 2.5, 4.3, 7.3): a diagnostic engine over the caller's own
 * team's jobs and account. It answers the envelope of 2.5 with status 200 whether it found
 * the cause or got stuck, and 504 with the partial envelope (plus the usual error members)
 * when the time budget (60 s; ServiceConfig.supportBudgetMs) runs out.
 * Price: free, as on the hosted service (billing/prices.ts has no support price); the probes
 * it runs (one-page scrapes, dry crawls of raw pages) are not charged either.
 * Not recorded in the activity listing (4.4 has no support endpoint).
 */
import { supportAskRequestSchema } from 'webdata-contract';
import type { ErrorBody, SupportAnswer } from 'webdata-contract';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import { createResourceFetcher } from '../crawler/fetcher.js';
import { llmConfigFromEnv, type LlmConfig } from '../crawl-prompt/llm.js';
import { parseBody } from '../http/validate.js';
import { TimeBudget, SUPPORT_TIME_BUDGET_MS, type TimeBudgetClock } from './time-budget.js';
import { investigate } from './diagnose.js';
import { inspectorOf } from './inspector.js';
import { rephrase } from './rephrase.js';
import type { Case, Finding } from './types.js';

export interface SupportRouteOptions {
  /** Overrides ServiceConfig.supportBudgetMs (default 60 s). */
  budgetMs?: number;
  /** The model that may reword answers; default: the environment's; null: none. */
  llm?: LlmConfig | null;
  /** The budget's clock (default the real one). */
  clock?: TimeBudgetClock;
}

export function registerSupportRoutes(router: Router, ctx: ServiceContext, opts: SupportRouteOptions = {}): void {
  router.add('POST', '/v2/support/ask', (req) => askSupport(ctx, req, opts), { group: 'support' });
}

function envelope(requestId: string, f: Finding, durationMs: number): SupportAnswer {
  const feedback = f.feedback ?? (f.confidence === 'low' && !f.fixParameters ? { blockedBy: 'the cause could not be confirmed', attempted: [] } : null);
  return {
    requestId,
    answer: f.answer,
    confidence: f.confidence,
    fixParameters: f.fixParameters,
    validation: f.validation,
    feedback,
    durationMs,
  };
}

export async function askSupport(ctx: ServiceContext, req: RouteRequest, opts: SupportRouteOptions = {}): Promise<RouteResponse<SupportAnswer>> {
  const body = parseBody(supportAskRequestSchema, req.body);
  const budgetMs = opts.budgetMs ?? ctx.config.supportBudgetMs ?? SUPPORT_TIME_BUDGET_MS;
  const timeBudget = new TimeBudget(budgetMs, req.signal, opts.clock);
  const fetcher = createResourceFetcher({ allowNonLoopback: ctx.config.allowNonLoopback, timeoutMs: 15_000 });
  const c: Case = {
    ctx,
    team: req.team,
    inspector: inspectorOf(ctx),
    question: body.question,
    ...(body.rationale !== undefined ? { rationale: body.rationale } : {}),
    ...(body.context !== undefined ? { context: body.context } : {}),
    timeBudget,
    fetcher,
    trail: [],
  };
  const llm = opts.llm === null ? undefined : opts.llm ?? llmConfigFromEnv();

  const work = (async (): Promise<Finding> => {
    let finding: Finding;
    try {
      finding = await investigate(c, body.jobId);
    } catch (err) {
      if (timeBudget.exhausted) throw err;
      // The envelope is always returned (7.3): an internal failure is a stuck answer.
      const why = err instanceof Error ? err.message : String(err);
      finding = {
        cause: 'internal_error', confidence: 'low', fixParameters: null, validation: null,
        answer: `The diagnosis could not finish: ${why}. Try again, or ask with the jobId of the request that failed.`,
        feedback: { blockedBy: `internal error: ${why}`, attempted: [...c.trail] },
      };
    }
    if (llm && timeBudget.remaining() > 2000) {
      finding = { ...finding, answer: await rephrase(llm, finding, body.question, timeBudget.within(Math.min(10_000, timeBudget.remaining() - 1000))) };
    }
    return finding;
  })();
  // After a 504 the work still winds down (its probes abort with the budget): never unhandled.
  work.catch(() => undefined);

  try {
    const finished = await Promise.race([work, timeBudget.expired.then(() => undefined)]);
    if (finished && !timeBudget.exhausted) return { body: envelope(req.requestId, finished, timeBudget.elapsed()) };
    return { status: 504, body: partialEnvelope(c, req.requestId, budgetMs) };
  } catch {
    return { status: 504, body: partialEnvelope(c, req.requestId, budgetMs) };
  } finally {
    timeBudget.dispose();
    void work.finally(() => fetcher.close()).catch(() => undefined);
  }
}

/** The 504 answer (7.3): the envelope of 2.5 with the error members of a failed request. */
function partialEnvelope(c: Case, requestId: string, budgetMs: number): SupportAnswer & ErrorBody {
  const p = c.partial;
  const last = c.trail.at(-1);
  return {
    success: false,
    error: `Support ask ran out of its ${budgetMs} ms budget; the partial diagnosis is returned`,
    code: 'SUPPORT_BUDGET_EXCEEDED',
    requestId,
    answer: p?.answer ?? 'The diagnosis did not finish within the time budget, before any cause was identified. Ask again with the jobId of the request that failed.',
    confidence: 'low',
    fixParameters: p?.fixParameters ?? null,
    validation: p?.validation ?? { tested: false, result: 'skipped', evidence: 'the budget ran out before the fix could be tested' },
    feedback: { blockedBy: `the ${budgetMs} ms time budget ran out${last ? ` after: ${last}` : ''}`, attempted: [...c.trail] },
    durationMs: c.timeBudget.elapsed(),
  };
}
