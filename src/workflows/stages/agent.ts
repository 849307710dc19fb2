// agent: one agent job (POST /v2/agent) after the pages are stored. Its maxCredits is clamped
// to what is left of the run's budget (the credit guard), the job is polled with backoff until
// it ends, its answer is stored (kind `agent`) by the status read, and its credits are counted.
// A service without the agent route skips the stage (not available), never fails the run.
import { CancellationScope, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { AgentJobResult } from '../../activities/agents.js';
import { agentStarts, cleanup, lists, reads } from '../activities.js';
import { creditsAvailable } from '../budget.js';
import { ledgerTenant, stageKey } from '../tenant-budget.js';
import { slotToTake, takeSlot } from '../tenant-limits.js';
import { spend } from '../credit-guard.js';
import type { PipelineConfig } from '../input.js';
import { NOT_AVAILABLE, notAvailableMessage, noteNotAvailable } from '../report-notes.js';
import type { PipelineRuntime } from '../runtime.js';
import type { StageOutcome } from './types.js';

/** The least an agent job can cost: one model call. */
export const AGENT_MIN_CREDITS = 1;

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The events the stage acts on: the job's end (it polls at once, and the poll is the record). */
export const AGENT_WEBHOOK_EVENTS = ['completed', 'failed', 'cancelled'] as const;

/** The agent job's webhook: the run's receiver with the stage's events, or none without a receiver. */
export function agentWebhookFor(pipeline: PipelineRuntime): { url: string; metadata: Record<string, string>; events: Array<(typeof AGENT_WEBHOOK_EVENTS)[number]> } | undefined {
  const url = pipeline.state.config.webhookUrl;
  if (!url) return undefined;
  return { url, metadata: { workflowId: pipeline.workflowId(), runId: pipeline.state.runId }, events: [...AGENT_WEBHOOK_EVENTS] };
}

export type AgentCap =
  | { kind: 'run'; maxCredits: number | undefined; event?: string }
  | { kind: 'skip'; reason: string; event: string };

/**
 * The agent's maxCredits under the run's budget: the configured cap, or what is left when that
 * is less (or none was set). Pure, so the rule is unit-testable; `left` is Infinity without budget.
 */
export function clampAgentCredits(configured: number | undefined, left: number): AgentCap {
  if (!Number.isFinite(left)) return { kind: 'run', maxCredits: configured };
  const affordable = Math.floor(left);
  if (affordable < AGENT_MIN_CREDITS) {
    return { kind: 'skip', reason: 'budget: no credits left for the agent', event: `agent skipped: ${affordable} credits left (budget)` };
  }
  if (configured !== undefined && configured <= affordable) return { kind: 'run', maxCredits: configured };
  return { kind: 'run', maxCredits: affordable, event: `agent maxCredits clamped from ${configured ?? 'unset'} to ${affordable} (budget)` };
}

/** URLs given to the agent: `urls`, then stored pages matching `match`, at most `maxUrls` of the latter. */
async function agentUrls(pipeline: PipelineRuntime, agent: NonNullable<PipelineConfig['agent']>): Promise<string[] | undefined> {
  const urls = [...(agent.urls ?? [])];
  if (agent.match !== undefined) {
    const stored = await lists.findStoredPages.executeWithOptions(
      { summary: `pages matching ${agent.match} for the agent` },
      [{ runId: pipeline.state.runId, match: agent.match, limit: agent.maxUrls ?? 10 }],
    );
    for (const url of stored) if (/^https?:\/\//i.test(url) && !urls.includes(url)) urls.push(url);
  }
  return urls.length > 0 ? urls : undefined;
}

export async function runAgent(pipeline: PipelineRuntime): Promise<StageOutcome> {
  const { state } = pipeline;
  const agent = state.config.agent;
  if (!agent) return { kind: 'skipped', reason: 'not configured' };
  const report = pipeline.report('agent');

  if (!state.agentJob) {
    let maxCredits = agent.maxCredits;
    const budgeted = state.credits.budget !== null || state.config.budget?.monthlyCap !== undefined;
    if (budgeted) {
      // Waits for a raiseBudget (up to waitForRaiseMs) when not even one model call fits.
      const available = await creditsAvailable(pipeline, AGENT_MIN_CREDITS);
      const left = available ?? 0;
      const cap = clampAgentCredits(agent.maxCredits, left);
      if (cap.event) state.credits.events.push(cap.event);
      if (cap.kind === 'skip') return { kind: 'skipped', reason: cap.reason };
      maxCredits = cap.maxCredits;
    } else {
      // Not budgeted, so no credit read took the run's slot of its tenant's runs in flight: take it now.
      const tenant = ledgerTenant(pipeline);
      if (tenant !== undefined && slotToTake(pipeline)) await takeSlot(pipeline, tenant, stageKey(pipeline, 'agent'));
    }
    const urls = await agentUrls(pipeline, agent);
    report.urls = urls?.length ?? 0;
    if (agent.strictConstrainToURLs && !urls) return { kind: 'skipped', reason: `strictConstrainToURLs: no stored page matches ${agent.match}` };
    let started: { id: string };
    // The job subscribes to its terminal events: a delivery wakes the wait below at once.
    const webhook = agentWebhookFor(pipeline);
    try {
      started = await agentStarts.startAgent.executeWithOptions(
        { summary: `agent${maxCredits !== undefined ? ` maxCredits ${maxCredits}` : ''}` },
        [{
          body: {
            prompt: agent.prompt,
            ...(urls ? { urls } : {}),
            ...(agent.schema ? { schema: agent.schema } : {}),
            ...(maxCredits !== undefined ? { maxCredits } : {}),
            ...(agent.strictConstrainToURLs !== undefined ? { strictConstrainToURLs: agent.strictConstrainToURLs } : {}),
            // Only present when the input names a model, which older inputs could not: replays unchanged.
            ...(agent.model !== undefined ? { model: agent.model } : {}),
            ...(webhook ? { webhook } : {}),
          },
        }],
      );
    } catch (err) {
      // A service without the agent route (the open-source server): a missing feature, reported.
      const missing = notAvailableMessage(err);
      if (missing === undefined) throw err;
      noteNotAvailable(report, 'agent');
      return { kind: 'skipped', reason: `${NOT_AVAILABLE}: ${missing}` };
    }
    state.agentJob = { jobId: started.id, maxCredits: maxCredits ?? null };
    state.jobs['agent#1'] = started.id;
  }
  const job = state.agentJob;
  report.jobId = job.jobId;
  pipeline.publish();

  let result: AgentJobResult;
  try {
    const waited = await waitForAgent(pipeline, job);
    if (waited === 'continue-as-new') return { kind: 'continue-as-new' };
    result = waited;
  } catch (err) {
    // Whatever the job spent counts, also when the stage fails or the run is cancelled.
    state.agentJob = undefined;
    const seen = job.creditsSeen ?? 0;
    report.credits = seen;
    spend(state.credits, 'agent', seen);
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        cleanup.cancelAgent.executeWithOptions({ summary: `cancel agent ${job.jobId}: run cancelled` }, [{ id: job.jobId }]),
      );
    }
    throw err;
  }
  state.agentJob = undefined;
  // -1: the service did not say; the cap it was given is the most it could have spent.
  const credits = result.creditsUsed >= 0 ? result.creditsUsed : (job.maxCredits ?? 0);
  report.credits = credits;
  spend(state.credits, 'agent', credits);
  report.documents = result.stored ? 1 : 0;
  report.ref = result.ref;
  if (result.status === 'completed' && result.stored) return { kind: 'ok' };
  if (result.status === 'completed') return { kind: 'failed', reason: 'agent job completed without an answer', jobId: job.jobId };
  return { kind: 'failed', reason: `agent job ${result.status}${result.error ? `: ${result.error}` : ''}`, jobId: job.jobId };
}

/** Polls the agent job with backoff until it ends; a completed answer is stored by the read. */
async function waitForAgent(pipeline: PipelineRuntime, job: NonNullable<PipelineRuntime['state']['agentJob']>): Promise<AgentJobResult | 'continue-as-new'> {
  const polling = pipeline.state.config.polling ?? { minIntervalMs: 1_000, maxIntervalMs: 30_000 };
  const report = pipeline.report('agent');
  let interval = polling.minIntervalMs;
  let cancelledOverCap = false;
  for (;;) {
    const res = await reads.getAgent.executeWithOptions(
      { summary: `status agent ${job.jobId}` },
      [{ runId: pipeline.state.runId, id: job.jobId }],
    );
    job.creditsSeen = Math.max(0, res.creditsUsed);
    report.credits = job.creditsSeen;
    pipeline.publish();
    if (TERMINAL.has(res.status)) return res;
    // The service honours maxCredits; one that does not is cancelled once past the cap.
    if (!cancelledOverCap && job.maxCredits !== null && res.creditsUsed > job.maxCredits) {
      cancelledOverCap = true;
      await cleanup.cancelAgent.executeWithOptions({ summary: `cancel agent ${job.jobId}: past maxCredits` }, [{ id: job.jobId }]);
      pipeline.state.credits.events.push(`agent: job ${job.jobId} cancelled at ${res.creditsUsed} credits, past its maxCredits ${job.maxCredits}`);
      interval = polling.minIntervalMs;
      continue;
    }
    if (workflowInfo().continueAsNewSuggested) return 'continue-as-new';
    // A delivery of the job's end wakes the wait: poll at once (the poll reads the answer).
    if (await condition(() => pipeline.hasEvent(job.jobId), interval)) {
      pipeline.takeEvents(job.jobId);
      interval = polling.minIntervalMs;
      continue;
    }
    interval = Math.min(polling.maxIntervalMs, Math.round(interval * 1.6));
  }
}
