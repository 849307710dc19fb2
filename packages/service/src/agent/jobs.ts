// The agent and extract jobs of one service: kept in memory, each run as a background task that
// bills its pages and model calls, never past the job's credit cap. Read as the hosted service
// answers (status shape, expiry after the job TTL).
import { modelCallCredits, scrapeRequestSchema } from 'webdata-contract';
import type { AgentJobStatus, AgentStatusResponse, WebhookEventType } from 'webdata-contract';
import type { RouteRequest } from '../core/routes.js';
import type { ServiceContext } from '../core/service.js';
import type { TeamConfig } from '../core/teams.js';
import type { WebhookSpec } from '../core/webhooks.js';
import { notFound } from '../http/errors.js';
import { newJobId } from '../http/ids.js';
import { assertJobId, assertOwner, parseBody } from '../http/validate.js';
import type { LlmConfig } from '../interact/llm-config.js';
import { chatWithUsage, jsonObjectOf, type ChatMessage } from './model.js';
import { TokenLedger } from './tokens.js';

export interface AgentJob {
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
  /** Where `agent.*` / `extract.*` events go (the request's webhook), and the team that pays. */
  webhook?: { spec: WebhookSpec | string; team: TeamConfig };
}

export interface Page {
  url: string;
  markdown: string;
}

/** Stops a job whose next step would pass its credit cap. */
export class BudgetExceeded extends Error {}

export class AgentJobs {
  private readonly jobs = new Map<string, AgentJob>();
  private readonly running = new Set<Promise<void>>();
  readonly tokens: TokenLedger;

  constructor(private readonly ctx: ServiceContext) {
    this.tokens = new TokenLedger(ctx.teams, ctx.now);
    ctx.onClose(async () => {
      for (const job of this.jobs.values()) job.abort.abort(new Error('service closing'));
      await Promise.allSettled([...this.running]);
    });
  }

  /** GET /v2/agent/:id and GET /v2/extract/:id answer the same status shape. */
  statusBody(job: AgentJob): AgentStatusResponse {
    return {
      success: job.status !== 'failed',
      status: job.status,
      ...(job.data !== undefined ? { data: job.data } : {}),
      ...(job.error !== undefined ? { error: job.error } : {}),
      ...(job.sources ? { sources: job.sources } : {}),
      creditsUsed: job.creditsUsed,
      expiresAt: new Date((job.completedAt ?? this.ctx.now()) + this.ctx.config.jobTtlMs).toISOString(),
    };
  }

  /** The caller's job of this kind named by the route's `:id`; 404 once it expired. */
  find(req: RouteRequest, kind: AgentJob['kind']): AgentJob {
    const id = assertJobId(req.params.id);
    const job = this.jobs.get(id);
    const { ctx } = this;
    if (!job || job.kind !== kind || (job.completedAt !== undefined && ctx.now() >= job.completedAt + ctx.config.jobTtlMs)) throw notFound();
    assertOwner(job.teamId, req.team);
    return job;
  }

  /**
   * Records a new job and runs `work` in the background; its outcome sets the job's status.
   * With a webhook, `<kind>.started` is sent now and `<kind>.completed|failed|cancelled` at the end.
   */
  launch(kind: AgentJob['kind'], req: RouteRequest, work: (job: AgentJob) => Promise<void>, webhook?: WebhookSpec | string): AgentJob {
    const { ctx } = this;
    const job: AgentJob = {
      id: newJobId(ctx.now()), kind, teamId: req.team.id, apiKey: req.apiKey, status: 'processing', creditsUsed: 0, createdAt: ctx.now(), abort: new AbortController(),
      ...(webhook !== undefined ? { webhook: { spec: webhook, team: req.team } } : {}),
    };
    this.jobs.set(job.id, job);
    ctx.activity.record({ id: job.id, teamId: req.team.id, endpoint: kind, createdAt: job.createdAt, target: kind === 'agent' ? 'agent' : 'extract' });
    this.emit(job, 'started', { success: true });
    const p = work(job)
      .then(() => this.finish(job, 'completed'))
      .catch((err: unknown) => {
        if (job.abort.signal.aborted) return this.finish(job, 'cancelled');
        this.finish(job, 'failed', err instanceof Error ? err.message : String(err));
      })
      .finally(() => this.running.delete(p));
    this.running.add(p);
    return job;
  }

  /** Ends a running job (once) and sends its terminal event. */
  finish(job: AgentJob, status: Exclude<AgentJobStatus, 'processing'>, error?: string): void {
    if (job.status !== 'processing') return;
    job.status = status;
    if (error !== undefined) job.error = error;
    job.completedAt = this.ctx.now();
    this.emit(job, status, status === 'completed'
      ? { success: true, data: job.data !== undefined ? [job.data] : [] }
      : { success: false, ...(job.error !== undefined ? { error: job.error } : {}) });
  }

  private emit(job: AgentJob, suffix: string, event: { success: boolean; data?: unknown[]; error?: string }): void {
    if (!job.webhook) return;
    this.ctx.webhooks.send(job.webhook.team, job.webhook.spec, {
      type: `${job.kind}.${suffix}` as WebhookEventType,
      jobId: job.id,
      success: event.success,
      data: event.data ?? [],
      ...(event.error !== undefined ? { error: event.error } : {}),
    });
  }

  /** Charges up to `credits`, never past the job's cap or the team's credits. */
  spend(job: AgentJob, team: TeamConfig, cap: number, credits: number, reason: string): void {
    const { ledger } = this.ctx;
    const left = Math.min(cap - job.creditsUsed, ledger.remaining(team.id));
    const charged = Math.min(credits, left);
    if (charged > 0) ledger.charge({ teamId: team.id, apiKey: job.apiKey, credits: charged, reason, jobId: job.id });
    job.creditsUsed += Math.max(0, charged);
  }

  /** Throws BudgetExceeded when `need` more credits pass the job's cap or the team's credits. */
  ensure(job: AgentJob, team: TeamConfig, cap: number, need: number, what: string): void {
    const { ledger } = this.ctx;
    if (job.creditsUsed + need > cap) throw new BudgetExceeded(`maxCredits (${cap}) reached after ${job.creditsUsed} credits: ${what} would cost more`);
    if (ledger.remaining(team.id) < need) throw new BudgetExceeded(`Insufficient credits: ${what} needs ${need}, the team has ${ledger.remaining(team.id)}`);
  }

  /** Scrapes one page as markdown (an error status becomes a one-line note for the model). */
  async readPage(job: AgentJob, team: TeamConfig, url: string, scrapeOptions: Record<string, unknown>): Promise<Page> {
    const options = parseBody(scrapeRequestSchema, { formats: ['markdown'], ...scrapeOptions, url });
    const outcome = await this.ctx.scrapeEngine.scrape(url, options, { scrapeId: newJobId(this.ctx.now()), team, signal: job.abort.signal });
    const doc = outcome.document;
    const status = doc.metadata.statusCode;
    return { url, markdown: status >= 400 ? `(HTTP ${status}${doc.metadata.error ? `: ${doc.metadata.error}` : ''})` : (doc.markdown ?? '') };
  }

  /** One model call, billed by its tokens; answers the JSON object the model returned. */
  async callModel(job: AgentJob, team: TeamConfig, llm: LlmConfig, cap: number, messages: ChatMessage[]): Promise<Record<string, unknown>> {
    this.ensure(job, team, cap, 1, 'a model call');
    const { content, tokens: used } = await chatWithUsage(llm, messages, job.abort.signal);
    this.tokens.record(team.id, job.apiKey, used);
    this.spend(job, team, cap, modelCallCredits(used), `${job.kind} model`);
    return jsonObjectOf(content);
  }
}
