// POST/GET/DELETE /v2/agent and POST/GET /v2/extract (contract notes), run on the configured
// OpenAI-compatible model (503 without one), plus GET /v2/team/token-usage[/historical] from
// the tokens those jobs used. One function per route; the jobs are in jobs.ts, their work in
// work.ts. Every page is billed as a page and every model call by its tokens; with `maxCredits`
// the agent never spends more: it stops and fails with a message when the next step would pass
// the cap.
import { agentRequestSchema, extractRequestSchema, historicalTokenUsageQuerySchema, pageCredits } from 'webdata-contract';
import type {
  AgentCancelResponse,
  AgentStartResponse,
  AgentStatusResponse,
  ExtractResponse,
  HistoricalTokenUsageResponse,
  TokenUsageResponse,
} from 'webdata-contract';
import { requireCredits } from '../billing/guard.js';
import { HttpError } from '../core/http-error.js';
import type { RouteRequest, RouteResponse, Router } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import { parseBody, parseQuery } from '../http/validate.js';
import { llmConfigFromEnv } from '../interact/llm-config.js';
import { AgentJobs } from './jobs.js';
import { agentNotConfigured } from './model.js';
import { runAgent, runExtract } from './work.js';

export function registerAgentRoutes(router: Router, ctx: ServiceContext): void {
  const agents = new AgentJobs(ctx);
  router.add('POST', '/v2/agent', (req) => startAgent(ctx, agents, req), { group: 'extract' });
  router.add('GET', '/v2/agent/:id', (req) => getAgent(agents, req), { group: 'extract' });
  router.add('DELETE', '/v2/agent/:id', (req) => cancelAgent(agents, req), { group: 'extract' });
  router.add('POST', '/v2/extract', (req) => startExtract(ctx, agents, req), { group: 'extract' });
  router.add('GET', '/v2/extract/:id', (req) => getExtract(agents, req), { group: 'extract' });
  router.add('GET', '/v2/team/token-usage', (req) => tokenUsage(agents, req), { group: 'team' });
  router.add('GET', '/v2/team/token-usage/historical', (req) => historicalTokenUsage(agents, req), { group: 'team' });
}

function startAgent(ctx: ServiceContext, agents: AgentJobs, req: RouteRequest): RouteResponse<AgentStartResponse> {
  const { origin: _o, integration: _i, webhook, ...body } = parseBody(agentRequestSchema, req.body);
  const llm = llmConfigFromEnv();
  if (!llm) throw agentNotConfigured('Agent');
  requireCredits(ctx.ledger, req.team);
  const team = req.team;
  const job = agents.launch('agent', req, (job) => runAgent(agents, job, team, llm, body), webhook);
  return { body: { success: true, id: job.id } };
}

function getAgent(agents: AgentJobs, req: RouteRequest): RouteResponse<AgentStatusResponse> {
  return { body: agents.statusBody(agents.find(req, 'agent')) };
}

function cancelAgent(agents: AgentJobs, req: RouteRequest): RouteResponse<AgentCancelResponse> {
  const job = agents.find(req, 'agent');
  if (job.status !== 'processing' && job.status !== 'cancelled') {
    throw new HttpError(409, `Agent job already ${job.status}`, { code: 'JOB_FINISHED' });
  }
  job.abort.abort(new Error('cancelled'));
  agents.finish(job, 'cancelled');
  return { body: { success: true, status: 'cancelled' } };
}

function startExtract(ctx: ServiceContext, agents: AgentJobs, req: RouteRequest): RouteResponse<AgentStartResponse> {
  const { origin: _o, integration: _i, webhook, ...body } = parseBody(extractRequestSchema, req.body);
  const llm = llmConfigFromEnv();
  if (!llm) throw agentNotConfigured('Extract');
  requireCredits(ctx.ledger, req.team, body.urls.length * pageCredits(body.scrapeOptions?.formats) + 1);
  const team = req.team;
  const job = agents.launch('extract', req, (job) => runExtract(agents, job, team, llm, body), webhook);
  return { body: { success: true, id: job.id } };
}

function getExtract(agents: AgentJobs, req: RouteRequest): RouteResponse<ExtractResponse> {
  const job = agents.find(req, 'extract');
  return { body: { ...agents.statusBody(job), ...(job.warning ? { warning: job.warning } : {}) } };
}

function tokenUsage(agents: AgentJobs, req: RouteRequest): RouteResponse<TokenUsageResponse> {
  return { body: { success: true, data: agents.tokens.usage(req.team.id) } };
}

function historicalTokenUsage(agents: AgentJobs, req: RouteRequest): RouteResponse<HistoricalTokenUsageResponse> {
  const query = parseQuery(historicalTokenUsageQuerySchema, req.query);
  return { body: { success: true, periods: agents.tokens.periods(req.team.id, query.byApiKey ?? false) } };
}
