// webDataPipeline: map → select → crawl → collect → batch → collect → interact → agent, with a
// credit budget, webhook-accelerated completion, self-repair through support ask, and continue-as-new.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  log,
  setHandler,
  workflowInfo,
  ActivityFailure,
  ContinueAsNew,
} from '@temporalio/workflow';
import { lists, reads, support } from './activities.js';
import { jobEventSignal, progressQuery, raiseBudgetUpdate, tenantBudgetChangedSignal } from './definitions.js';
import type { PipelineInput } from './input.js';
import { checkPipelineInput } from './input-check.js';
import { PipelineInputError, stageEnabled, type StageName } from './input-fields.js';
import { apiKeyRefFailure, requireApiKeyRefCarrier } from './api-key-ref.js';
import { failureText, NOT_AVAILABLE, notAvailableMessage, noteNotAvailable } from './report-notes.js';
import { deadlineOf } from './progress-rule.js';
import { PipelineRuntime } from './runtime.js';
import { settleCancelledStages, settleStage } from './tenant-budget.js';
import { releaseSlot } from './tenant-limits.js';
import { runAgent } from './stages/agent.js';
import { runBatch } from './stages/batch.js';
import { runCrawl } from './stages/crawl.js';
import { runInteract } from './stages/interact.js';
import { runMap } from './stages/map.js';
import { runSelect } from './stages/select.js';
import type { StageOutcome } from './stages/types.js';
import type { PipelineResult, PipelineState } from './state.js';
import { applyFix, decideFix, supportQuestion, type FixableStage } from './support.js';

/**
 * Stages in the order they run; `support` is not a step but the repair of a failed one. The
 * agent comes last: it may take its URLs from the pages the stages before it stored, and its
 * maxCredits is clamped to what they left of the budget. Appended, so the index `next` that a
 * continue-as-new carries means the same stage to runs started before it existed.
 */
const ORDER: Array<Exclude<StageName, 'support'>> = ['map', 'select', 'crawl', 'batch', 'interact', 'agent'];

const RUNNERS: Record<(typeof ORDER)[number], (pipeline: PipelineRuntime) => Promise<StageOutcome>> = {
  map: runMap,
  select: runSelect,
  crawl: runCrawl,
  batch: runBatch,
  interact: runInteract,
  agent: runAgent,
};

function initialState(input: PipelineInput): PipelineState {
  let config;
  try {
    // The starting client recorded its deployment's setting in the input (see input.ts): a list
    // of hosts, or `true` (the blanket allowance).
    config = checkPipelineInput(input, { allowPrivateAddresses: input.allowPrivateAddresses ?? false });
  } catch (err) {
    if (err instanceof PipelineInputError) {
      throw ApplicationFailure.create({ message: err.message, type: 'validation', nonRetryable: true, details: [err.issues] });
    }
    throw err;
  }
  requireApiKeyRefCarrier(config.apiKeyRef);
  return {
    config,
    runId: config.runId ?? workflowInfo().workflowId,
    next: 0,
    reports: {},
    credits: { budget: config.budget?.credits ?? null, spent: 0, byStage: {}, events: [] },
    jobs: {},
    lists: {},
    retried: [],
    continuedAsNew: 0,
    idempotencyKeys: {},
    ...(config.deadlineMs !== undefined ? { startedAt: Date.now() } : {}),
  };
}


export async function webDataPipeline(input: PipelineInput, carried?: PipelineState): Promise<PipelineResult> {
  const state = carried ?? initialState(input);
  const pipeline = new PipelineRuntime(state);

  setHandler(progressQuery, () => pipeline.progress());
  setHandler(jobEventSignal, (event) => pipeline.pushEvent(event.jobId, event.type, event.webhookId));
  // Sent by setTenantBudget to the tenant's running pipelines: a budget wait looks again at once
  // instead of at its next periodic read of the ledger.
  setHandler(tenantBudgetChangedSignal, () => {
    pipeline.budgetWakes += 1;
  });
  setHandler(
    raiseBudgetUpdate,
    ({ credits }) => {
      state.credits.budget = (state.credits.budget ?? 0) + credits;
      state.credits.events.push(`budget raised by ${credits} to ${state.credits.budget}`);
      pipeline.budgetWakes += 1;
      pipeline.publish();
      return { budget: state.credits.budget };
    },
    {
      validator: (arg) => {
        if (!arg || !Number.isInteger(arg.credits) || arg.credits <= 0) throw new Error('credits: must be a positive integer');
        if (state.credits.budget === null) throw new Error('this run has no budget to raise (input.budget is not set)');
      },
    },
  );

  try {
    // A run of a series learns its baseline once, before any page is collected.
    if (state.config.changes && !state.changes) {
      state.changes = await lists.openSeriesRun.executeWithOptions(
        { summary: `series ${state.config.changes.series}: find the previous completed run` },
        [{ series: state.config.changes.series, runId: state.runId }],
      );
    }
    while (state.next < ORDER.length) {
      const stage = ORDER[state.next];
      const report = pipeline.report(stage);
      // Batch mode scrapes the selected URLs in one batch job: no crawl.
      if (stage === 'crawl' && state.config.mode === 'batch') {
        report.status = 'skipped';
        report.reason = 'mode batch: the batch stage scrapes every selected URL';
        state.next += 1;
        continue;
      }
      if (!stageEnabled(state.config, stage)) {
        report.status = 'skipped';
        report.reason = 'switched off';
        log.info('stage skipped', { stage, reason: report.reason });
        state.next += 1;
        continue;
      }
      // No agent asked for: skipped without a command (runs recorded before the agent stage
      // existed replay unchanged: they end here, where they ended before).
      if (stage === 'agent' && !state.config.agent) {
        report.status = 'skipped';
        report.reason = 'not configured';
        state.next += 1;
        continue;
      }
      // Past the run's deadline: the stages left are not started (the run ends partial).
      const deadline = deadlineOf(state);
      if (state.deadline || (deadline !== undefined && !state.activeJob && !state.agentJob && Date.now() >= deadline)) {
        state.deadline ??= { reachedAt: new Date(Date.now()).toISOString(), stage };
        report.status = 'skipped';
        report.reason = `run deadline reached (deadlineMs ${state.config.deadlineMs})`;
        state.next += 1;
        continue;
      }
      if (!state.activeJob && !state.agentJob && workflowInfo().continueAsNewSuggested) return await handOver(input, state);
      pipeline.stage = stage;
      report.status = 'running';
      pipeline.publish();
      log.info('stage started', { stage });

      let outcome = await runStage(pipeline, stage);
      if (outcome.kind === 'continue-as-new') return await handOver(input, state);
      // A stage stopped by the deadline is not repaired: the run stops waiting.
      if (outcome.kind === 'failed' && !state.deadline) outcome = await repair(pipeline, stage, outcome);
      if (outcome.kind === 'continue-as-new') return await handOver(input, state);
      settle(pipeline, stage, outcome);
      // The tenant's ledger records what the stage cost and releases the job's hold.
      if (report.credits > 0 || stage === 'crawl' || stage === 'batch') await settleStage(pipeline, stage, report.credits);
      log.info('stage finished', { stage, status: report.status, documents: report.documents, credits: report.credits, ...(report.reason ? { reason: report.reason } : {}) });
      state.next += 1;
    }
  } catch (err) {
    if (isCancellation(err)) {
      pipeline.status = 'cancelled';
      const cancelled: Array<[string, number]> = [];
      // What was running when the run was cancelled shows as cancelled, not running forever.
      for (const [stage, report] of Object.entries(state.reports)) {
        if (report?.status === 'running') {
          report.status = 'cancelled';
          report.reason ??= 'run cancelled';
          cancelled.push([stage, report.credits]);
        }
      }
      pipeline.publish();
      // The tenant's ledger: a cancelled stage's hold is released and what it spent recorded.
      await settleCancelledStages(pipeline, cancelled);
    }
    // Failed or cancelled: the run's slot of its tenant's runs in flight is given back (not at a continue-as-new).
    if (!(err instanceof ContinueAsNew)) await releaseSlot(pipeline);
    throw err;
  }
  await releaseSlot(pipeline);

  if (!state.reports.support) {
    state.reports.support = { status: 'skipped', credits: 0, reason: stageEnabled(state.config, 'support') ? 'no stage failed' : 'switched off' };
  }
  pipeline.stage = 'done';
  pipeline.status = overallStatus(state);
  if (state.changes) await reportChanges(pipeline);
  pipeline.publish();
  log.info('pipeline finished', { status: pipeline.status, documents: pipeline.documents(), credits: state.credits.spent });
  await condition(allHandlersFinished);
  return {
    status: pipeline.status as PipelineResult['status'],
    runId: state.runId,
    url: state.config.url,
    stages: state.reports,
    credits: state.credits,
    documents: pipeline.documents(),
    jobs: state.jobs,
    store: { runId: state.runId },
    continuedAsNew: state.continuedAsNew,
    ...(state.changes?.report ? { changes: state.changes.report } : {}),
  };
}

/** Counts what changed since the series' baseline, records a completed run as the next baseline, sends the summary. */
async function reportChanges(pipeline: PipelineRuntime): Promise<void> {
  const { state } = pipeline;
  const changes = state.changes as NonNullable<PipelineState['changes']>;
  const config = state.config.changes as NonNullable<PipelineState['config']['changes']>;
  const report = await lists.closeSeriesRun.executeWithOptions(
    { summary: `series ${config.series}: compare with ${changes.previousRunId ?? '(first run)'}` },
    [{ series: config.series, runId: state.runId, workflowId: workflowInfo().workflowId, previousRunId: changes.previousRunId, record: pipeline.status === 'completed' }],
  );
  if (config.webhookUrl) {
    report.webhook = await reads.sendChangeSummary.executeWithOptions(
      { summary: `series ${config.series}: summary webhook` },
      [{ url: config.webhookUrl, workflowId: workflowInfo().workflowId, status: pipeline.status, report }],
    ).catch((err: unknown) => {
      if (isCancellation(err)) throw err;
      return `failed: ${failureText(err)}`;
    });
  }
  changes.report = report;
  const c = report.counts;
  log.info('changes reported', { series: config.series, previousRunId: changes.previousRunId, ...c, ...(report.webhook ? { webhook: report.webhook } : {}) });
}

async function runStage(pipeline: PipelineRuntime, stage: (typeof ORDER)[number]): Promise<StageOutcome> {
  try {
    return await RUNNERS[stage](pipeline);
  } catch (err) {
    // A key name the worker cannot use fails the run: no later stage could run either.
    const keyRef = apiKeyRefFailure(err);
    if (keyRef) {
      // The progress query and the UI show the failed stage with the line, not a stage running.
      Object.assign(pipeline.report(stage), { status: 'failed', reason: keyRef.message });
      pipeline.status = 'failed';
      pipeline.publish();
      throw keyRef;
    }
    // A non-retryable activity failure (bad options, 402, 403...) fails the stage, not the run,
    // so support ask can look at it and later stages still run.
    if (err instanceof ActivityFailure && !isCancellation(err)) {
      const cause = err.cause as { message?: string; type?: string } | undefined;
      return { kind: 'failed', reason: `${cause?.type ?? 'error'}: ${cause?.message ?? err.message}` };
    }
    throw err;
  }
}

/** Asks support about a failed stage and retries it once with an accepted fix. */
async function repair(pipeline: PipelineRuntime, stage: (typeof ORDER)[number], failed: Extract<StageOutcome, { kind: 'failed' }>): Promise<StageOutcome> {
  const { state } = pipeline;
  const fixable = stage === 'crawl' || stage === 'batch' || stage === 'interact' ? (stage as FixableStage) : undefined;
  if (!fixable || !stageEnabled(state.config, 'support') || state.retried.includes(stage)) return failed;

  const supportReport = pipeline.report('support');
  // This service has no support ask (learned from an earlier stage): do not ask again.
  if (supportReport.notAvailable?.length) {
    pipeline.report(stage).support = { answer: `support ask is ${NOT_AVAILABLE}`, confidence: 'low', applied: false, fixParameters: null };
    return failed;
  }
  supportReport.status = 'running';
  pipeline.stage = 'support';
  pipeline.publish();
  let askError: unknown;
  // The ask names the failed stage's job (also when an activity failure, which carries no job
  // id, failed the stage) and the site.
  const jobId = failed.jobId ?? pipeline.report(stage).jobId;
  const answer = await support.askSupport.executeWithOptions(
    { summary: `support ask: ${stage} failed${jobId ? ` (job ${jobId})` : ''}` },
    [{
      body: {
        question: supportQuestion({ stage, reason: failed.reason, jobId, url: state.config.url }),
        rationale: 'A durable pipeline wants machine-usable fix parameters to retry this stage once.',
        ...(jobId ? { jobId } : {}),
        context: { stage, url: state.config.url, options: stageOptions(state, fixable) },
      },
    }],
  ).catch((err: unknown) => {
    if (isCancellation(err)) throw err;
    askError = err;
    return null;
  });
  pipeline.stage = stage;
  const report = pipeline.report(stage);
  if (!answer) {
    const missing = notAvailableMessage(askError);
    if (missing !== undefined) {
      // A missing feature route: the support stage is skipped, never reported completed.
      supportReport.status = 'skipped';
      supportReport.reason = `${NOT_AVAILABLE}: ${missing}`;
      noteNotAvailable(supportReport, 'support ask');
      report.support = { answer: `support ask is ${NOT_AVAILABLE}`, confidence: 'low', applied: false, fixParameters: null };
    } else {
      supportReport.status = 'failed';
      supportReport.reason = `support ask about ${stage} failed: ${failureText(askError)}`;
      report.support = { answer: 'support ask failed', confidence: 'low', applied: false, fixParameters: null };
    }
    pipeline.publish();
    return failed;
  }
  supportReport.status = 'completed';
  supportReport.reason = undefined;
  const decision = decideFix(state.config, fixable, answer);
  report.support = {
    answer: answer.answer,
    confidence: answer.confidence,
    applied: decision.apply,
    fixParameters: answer.fixParameters,
    why: decision.why,
  };
  if (!decision.apply) return failed;

  state.retried.push(stage);
  if (fixable === 'crawl') state.config.crawl = applyFix(state.config.crawl, decision.fix);
  else if (fixable === 'batch') state.config.batch = applyFix(state.config.batch, decision.fix);
  else state.config.interact = applyFix(state.config.interact, decision.fix);
  report.status = 'running';
  pipeline.publish();
  const retried = await runStage(pipeline, stage);
  if (retried.kind === 'ok') report.status = 'repaired';
  return retried.kind === 'ok' ? { kind: 'ok' } : retried;
}

function stageOptions(state: PipelineState, stage: FixableStage): unknown {
  return stage === 'crawl' ? state.config.crawl ?? {} : stage === 'batch' ? state.config.batch ?? {} : state.config.interact ?? {};
}

function settle(pipeline: PipelineRuntime, stage: StageName, outcome: StageOutcome): void {
  const report = pipeline.report(stage);
  if (outcome.kind === 'ok') {
    if (report.status !== 'repaired') report.status = 'completed';
  } else if (outcome.kind === 'skipped') {
    report.status = 'skipped';
    report.reason = outcome.reason;
  } else if (outcome.kind === 'failed') {
    report.status = 'failed';
    report.reason = outcome.reason;
    if (outcome.jobId) report.jobId ??= outcome.jobId;
  }
  pipeline.publish();
}

function overallStatus(state: PipelineState): PipelineResult['status'] {
  const reports = Object.values(state.reports);
  const failed = reports.some((r) => r?.status === 'failed');
  const documents = reports.reduce((n, r) => n + (r?.documents ?? 0), 0);
  // A job cut at the team's credits delivered less than asked, without failing; a run past its
  // deadline skipped what was left.
  if (!failed) return state.limitCuts?.length || state.deadline ? 'partial' : 'completed';
  return documents > 0 ? 'partial' : 'failed';
}

async function handOver(input: PipelineInput, state: PipelineState): Promise<never> {
  await condition(allHandlersFinished);
  state.continuedAsNew += 1;
  log.info('continuing as new', { next: ORDER[state.next] ?? 'done', continuedAsNew: state.continuedAsNew });
  return continueAsNew<typeof webDataPipeline>(input, state);
}
