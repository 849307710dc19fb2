// POST/GET/DELETE /v2/agent and POST/GET /v2/extract (contract notes), run on the configured
// OpenAI-compatible model (503 without one), plus GET /v2/team/token-usage[/historical] from
// the tokens those jobs used. Jobs live in memory and read as the hosted service answers.
//
// Extract: scrape every URL, then one model call that answers from the pages.
// Agent: read the given URLs, then let the model either answer or ask for more pages
// (`{"read": [...]}`), a few rounds at most. Every page is billed as a page and every model call
// by its tokens; with `maxCredits` the agent never spends more: it stops and fails with a
// message when the next step would pass the cap.
import { agentRequestSchema, extractRequestSchema, historicalTokenUsageQuerySchema, modelCallCredits, pageCredits, scrapeRequestSchema } from 'webdata-contract';
import type {
  AgentCancelResponse,
  AgentJobStatus,
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
import type { TeamConfig } from '../core/teams.js';
import { notFound } from '../http/errors.js';
import { newJobId } from '../http/ids.js';
import { assertJobId, assertOwner, parseBody, parseQuery } from '../http/validate.js';
import { llmConfigFromEnv, type LlmConfig } from '../interact/llm-config.js';
import { agentNotConfigured, chatWithUsage, jsonObjectOf, type ChatMessage } from './model.js';
import { TokenLedger } from './tokens.js';

/** Rounds of "read more pages" an agent may take before it must answer. */
const MAX_AGENT_ROUNDS = 4;
/** Pages an agent reads in all. */
const MAX_AGENT_PAGES = 20;
/** Characters of one page given to the model. */
const PAGE_CHARS = 12_000;

interface AgentJob {
  id: string;
  kind: 'agent' | 'extract';
  teamId: string;
  apiKey: string;
  status: AgentJobStatus;
  data?: unknown;
  error?: string;
  sources?: string[];
  warning?: string;
  creditsUsed: number;
  createdAt: number;
  completedAt?: number;
  abort: AbortController;
}

interface Page {
  url: string;
  markdown: string;
}

/** Stops a job whose next step would pass its credit cap. */
class BudgetExceeded extends Error {}

export function registerAgentRoutes(router: Router, ctx: ServiceContext): void {
  const jobs = new Map<string, AgentJob>();
  const tokens = new TokenLedger(ctx.teams, ctx.now);
  const running = new Set<Promise<void>>();
  ctx.onClose(async () => {
    for (const job of jobs.values()) job.abort.abort(new Error('service closing'));
    await Promise.allSettled([...running]);
  });

  const expiresAt = (job: AgentJob) => new Date((job.completedAt ?? ctx.now()) + ctx.config.jobTtlMs).toISOString();
  /** GET /v2/agent/:id and GET /v2/extract/:id answer the same status shape. */
  const statusBody = (job: AgentJob): AgentStatusResponse => ({
    success: job.status !== 'failed',
    status: job.status,
    ...(job.data !== undefined ? { data: job.data } : {}),
    ...(job.error !== undefined ? { error: job.error } : {}),
    ...(job.sources ? { sources: job.sources } : {}),
    creditsUsed: job.creditsUsed,
    expiresAt: expiresAt(job),
  });
  const find = (req: RouteRequest, kind: AgentJob['kind']): AgentJob => {
    const id = assertJobId(req.params.id);
    const job = jobs.get(id);
    if (!job || job.kind !== kind || (job.completedAt !== undefined && ctx.now() >= job.completedAt + ctx.config.jobTtlMs)) throw notFound();
    assertOwner(job.teamId, req.team);
    return job;
  };

  function launch(kind: AgentJob['kind'], req: RouteRequest, work: (job: AgentJob) => Promise<void>): AgentJob {
    const job: AgentJob = { id: newJobId(ctx.now()), kind, teamId: req.team.id, apiKey: req.apiKey, status: 'processing', creditsUsed: 0, createdAt: ctx.now(), abort: new AbortController() };
    jobs.set(job.id, job);
    ctx.activity.record({ id: job.id, teamId: req.team.id, endpoint: kind, createdAt: job.createdAt, target: kind === 'agent' ? 'agent' : 'extract' });
    const finish = (status: AgentJobStatus, error?: string) => {
      if (job.status !== 'processing') return;
      job.status = status;
      if (error !== undefined) job.error = error;
      job.completedAt = ctx.now();
    };
    const p = work(job)
      .then(() => finish('completed'))
      .catch((err: unknown) => {
        if (job.abort.signal.aborted) return finish('cancelled');
        finish('failed', err instanceof Error ? err.message : String(err));
      })
      .finally(() => running.delete(p));
    running.add(p);
    return job;
  }

  /** Charges up to `credits`, never past the job's cap; throws BudgetExceeded when `need` does not fit. */
  function spend(job: AgentJob, team: TeamConfig, cap: number, credits: number, reason: string): void {
    const left = Math.min(cap - job.creditsUsed, ctx.ledger.remaining(team.id));
    const charged = Math.min(credits, left);
    if (charged > 0) ctx.ledger.charge({ teamId: team.id, apiKey: job.apiKey, credits: charged, reason, jobId: job.id });
    job.creditsUsed += Math.max(0, charged);
  }
  function ensure(job: AgentJob, team: TeamConfig, cap: number, need: number, what: string): void {
    if (job.creditsUsed + need > cap) throw new BudgetExceeded(`maxCredits (${cap}) reached after ${job.creditsUsed} credits: ${what} would cost more`);
    if (ctx.ledger.remaining(team.id) < need) throw new BudgetExceeded(`Insufficient credits: ${what} needs ${need}, the team has ${ctx.ledger.remaining(team.id)}`);
  }

  async function readPage(job: AgentJob, team: TeamConfig, url: string, scrapeOptions: Record<string, unknown>): Promise<Page> {
    const options = parseBody(scrapeRequestSchema, { formats: ['markdown'], ...scrapeOptions, url });
    const outcome = await ctx.scrapeEngine.scrape(url, options, { scrapeId: newJobId(ctx.now()), team, signal: job.abort.signal });
    const doc = outcome.document;
    const status = doc.metadata.statusCode;
    return { url, markdown: status >= 400 ? `(HTTP ${status}${doc.metadata.error ? `: ${doc.metadata.error}` : ''})` : (doc.markdown ?? '') };
  }

  async function callModel(job: AgentJob, team: TeamConfig, llm: LlmConfig, cap: number, messages: ChatMessage[]): Promise<Record<string, unknown>> {
    ensure(job, team, cap, 1, 'a model call');
    const { content, tokens: used } = await chatWithUsage(llm, messages, job.abort.signal);
    tokens.record(team.id, job.apiKey, used);
    spend(job, team, cap, modelCallCredits(used), `${job.kind} model`);
    return jsonObjectOf(content);
  }

  const pagesText = (pages: Page[]) =>
    pages.map((p) => `<page url="${p.url}">\n${p.markdown.slice(0, PAGE_CHARS)}\n</page>`).join('\n\n') || '(no pages read yet)';
  const schemaText = (schema: unknown) =>
    schema ? `The "data" member must be a JSON value that follows this JSON schema:\n${JSON.stringify(schema)}` : 'The "data" member is a JSON object with the facts asked for.';

  // ---- agent ---------------------------------------------------------------------------

  router.add('POST', '/v2/agent', (req): RouteResponse<AgentStartResponse> => {
    const { origin: _o, integration: _i, webhook: _w, ...body } = parseBody(agentRequestSchema, req.body);
    const llm = llmConfigFromEnv();
    if (!llm) throw agentNotConfigured('Agent');
    requireCredits(ctx.ledger, req.team);
    const team = req.team;
    const cap = body.maxCredits ?? Number.POSITIVE_INFINITY;
    const allowed = new Set(body.urls ?? []);
    const job = launch('agent', req, async (job) => {
      const pages: Page[] = [];
      const notes: string[] = [];
      const read = async (urls: string[]) => {
        for (const url of urls) {
          if (pages.length >= MAX_AGENT_PAGES || pages.some((p) => p.url === url)) continue;
          if (body.strictConstrainToURLs && !allowed.has(url)) {
            notes.push(`not read (strictConstrainToURLs): ${url}`);
            continue;
          }
          ensure(job, team, cap, pageCredits(), `reading ${url}`);
          try {
            pages.push(await readPage(job, team, url, {}));
          } catch (err) {
            if (job.abort.signal.aborted) throw err;
            pages.push({ url, markdown: `(could not be read: ${err instanceof Error ? err.message : String(err)})` });
          }
          spend(job, team, cap, pageCredits(), 'agent page');
        }
      };
      await read(body.urls ?? []);
      const system = `You are a web research agent. Answer with ONE JSON object and nothing else, either
{"data": <the answer>} when the pages below are enough, or {"read": ["https://..."]} to read more pages first (absolute http(s) URLs).
${schemaText(body.schema)}${body.strictConstrainToURLs ? `\nOnly these URLs may be read: ${[...allowed].join(', ')}` : ''}`;
      for (let round = 0; ; round++) {
        const last = round >= MAX_AGENT_ROUNDS;
        const answer = await callModel(job, team, llm, cap, [
          { role: 'system', content: system },
          { role: 'user', content: `Task: ${body.prompt}\n\nPages read so far:\n${pagesText(pages)}${notes.length ? `\n\nNotes:\n${notes.join('\n')}` : ''}${last ? '\n\nAnswer now with {"data": ...}.' : ''}` },
        ]);
        if ('data' in answer) {
          job.data = answer.data;
          job.sources = pages.map((p) => p.url);
          return;
        }
        const more = Array.isArray(answer.read) ? answer.read.filter((u): u is string => typeof u === 'string' && /^https?:\/\//i.test(u)) : [];
        if (last || more.length === 0) throw new Error('The model gave no answer (neither "data" nor pages to read)');
        await read(more);
      }
    });
    return { body: { success: true, id: job.id } };
  }, { group: 'extract' });

  router.add('GET', '/v2/agent/:id', (req): RouteResponse<AgentStatusResponse> => {
    const job = find(req, 'agent');
    return { body: statusBody(job) };
  }, { group: 'extract' });

  router.add('DELETE', '/v2/agent/:id', (req): RouteResponse<AgentCancelResponse> => {
    const job = find(req, 'agent');
    if (job.status !== 'processing' && job.status !== 'cancelled') {
      throw new HttpError(409, `Agent job already ${job.status}`, { code: 'JOB_FINISHED' });
    }
    job.abort.abort(new Error('cancelled'));
    if (job.status === 'processing') {
      job.status = 'cancelled';
      job.completedAt = ctx.now();
    }
    return { body: { success: true, status: 'cancelled' } };
  }, { group: 'extract' });

  // ---- extract ---------------------------------------------------------------------------

  router.add('POST', '/v2/extract', (req): RouteResponse<AgentStartResponse> => {
    const { origin: _o, integration: _i, webhook: _w, ...body } = parseBody(extractRequestSchema, req.body);
    const llm = llmConfigFromEnv();
    if (!llm) throw agentNotConfigured('Extract');
    const perPage = pageCredits(body.scrapeOptions?.formats);
    requireCredits(ctx.ledger, req.team, body.urls.length * perPage + 1);
    const team = req.team;
    const job = launch('extract', req, async (job) => {
      const pages: Page[] = [];
      const failed: string[] = [];
      for (const url of body.urls) {
        try {
          pages.push(await readPage(job, team, url, body.scrapeOptions ?? {}));
          spend(job, team, Number.POSITIVE_INFINITY, perPage, 'extract page');
        } catch (err) {
          if (job.abort.signal.aborted) throw err;
          failed.push(url);
        }
      }
      if (pages.length === 0) throw new Error(`None of the URLs could be scraped: ${failed.join(', ')}`);
      const system = `${body.systemPrompt ? `${body.systemPrompt}\n\n` : ''}You extract structured data from web pages. Answer with ONE JSON object {"data": ...} and nothing else.
${schemaText(body.schema)} Use only facts found in the pages; use null for what they do not say.`;
      const answer = await callModel(job, team, llm, Number.POSITIVE_INFINITY, [
        { role: 'system', content: system },
        { role: 'user', content: `${body.prompt ? `Request: ${body.prompt}\n\n` : ''}Pages:\n${pagesText(pages)}` },
      ]);
      job.data = 'data' in answer ? answer.data : answer;
      if (body.showSources) job.sources = pages.map((p) => p.url);
      const warnings = [
        ...(failed.length ? [`Could not scrape: ${failed.join(', ')}`] : []),
        ...(body.enableWebSearch ? ['enableWebSearch is not available on this service: only the given URLs were read'] : []),
      ];
      if (warnings.length) job.warning = warnings.join('; ');
    });
    return { body: { success: true, id: job.id } };
  }, { group: 'extract' });

  router.add('GET', '/v2/extract/:id', (req): RouteResponse<ExtractResponse> => {
    const job = find(req, 'extract');
    return { body: { ...statusBody(job), ...(job.warning ? { warning: job.warning } : {}) } };
  }, { group: 'extract' });

  // ---- token usage ------------------------------------------------------------------------

  router.add('GET', '/v2/team/token-usage', (req): RouteResponse<TokenUsageResponse> => ({
    body: { success: true, data: tokens.usage(req.team.id) },
  }), { group: 'team' });

  router.add('GET', '/v2/team/token-usage/historical', (req): RouteResponse<HistoricalTokenUsageResponse> => {
    const query = parseQuery(historicalTokenUsageQuerySchema, req.query);
    return { body: { success: true, periods: tokens.periods(req.team.id, query.byApiKey ?? false) } };
  }, { group: 'team' });
}
