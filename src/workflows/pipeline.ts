// webDataPipeline: map → select → crawl → collect → batch → collect → interact → agent, with a
// credit budget, webhook-accelerated completion, self-repair through support ask, and continue-as-new.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setHandler,
  workflowInfo,
  ActivityFailure,
} from '@temporalio/workflow';
import { lists, reads, support } from './activities.js';
import { jobEventSignal, progressQuery, raiseBudgetUpdate } from './definitions.js';
import { parsePipelineInput, PipelineInputError, stageEnabled, type PipelineInput, type StageName } from './input.js';
import { failureText, NOT_AVAILABLE, notAvailableMessage, noteNotAvailable } from './report-notes.js';
import { PipelineRuntime } from './runtime.js';
import { runAgent } from './stages/agent.js';
import { runBatch } from './stages/batch.js';
import { runCrawl } from './stages/crawl.js';
import { runInteract } from './stages/interact.js';
import { runMap } from './stages/map.js';
import { runSelect } from './stages/select.js';
import type { StageOutcome } from './stages/types.js';
import type { PipelineResult, PipelineState } from './state.js';
import { applyFix, decideFix, type FixableStage } from './support.js';

const BATCH_MODE_SKIPS_CRAWL = 'batch-mode-skips-crawl';
/** Runs started before it recorded no address setting: their hosts were not checked. */
const PRIVATE_ADDRESS_CHECK = 'private-address-check';

/**
 * Stages in the order they run; `support` is not a step but the repair of a failed one. The
 * agent comes last: it may take its URLs from the pages the stages before it stored, and its
 * maxCredits is clamped to what they left of the budget. Appended, so the index `next` that a
 * continue-as-new carries means the same stage to runs started before it existed.
 */
const ORDER: Array<Exclude<StageName, 'support'>> = ['map', 'select', 'crawl', 'batch', 'interact', 'agent'];

const RUNNERS: Record<(typeof ORDER)[number], (rt: PipelineRuntime) => Promise<StageOutcome>> = {
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
    // The starting client recorded its deployment's setting in the input (see input.ts).
    const allowPrivateAddresses = !patched(PRIVATE_ADDRESS_CHECK) || input.allowPrivateAddresses === true;
    config = parsePipelineInput(input, { allowPrivateAddresses });
  } catch (err) {
    if (err instanceof PipelineInputError) {
      throw ApplicationFailure.create({ message: err.message, type: 'validation', nonRetryable: true, details: [err.issues] });
    }
    throw err;
  }
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
  };
}


export async function webDataPipeline(input: PipelineInput, carried?: PipelineState): Promise<PipelineResult> {
  const state = carried ?? initialState(input);
  const rt = new PipelineRuntime(state);

  setHandler(progressQuery, () => rt.progress());
  setHandler(jobEventSignal, (event) => rt.pushEvent(event.jobId, event.type, event.webhookId));
  setHandler(
    raiseBudgetUpdate,
    ({ credits }) => {
      state.credits.budget = (state.credits.budget ?? 0) + credits;
      state.credits.events.push(`budget raised by ${credits} to ${state.credits.budget}`);
      rt.budgetRaised += 1;
      rt.publish();
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
      const report = rt.report(stage);
      // Batch mode scrapes the selected URLs in one batch job: no crawl (patched: runs recorded
      // before this change crawled in batch mode and must replay as they ran).
      if (stage === 'crawl' && state.config.mode === 'batch' && patched(BATCH_MODE_SKIPS_CRAWL)) {
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
      if (!state.activeJob && !state.agentJob && workflowInfo().continueAsNewSuggested) return await handOver(input, state);
      rt.stage = stage;
      report.status = 'running';
      rt.publish();
      log.info('stage started', { stage });

      let outcome = await runStage(rt, stage);
      if (outcome.kind === 'continue-as-new') return await handOver(input, state);
      if (outcome.kind === 'failed') outcome = await repair(rt, stage, outcome);
      if (outcome.kind === 'continue-as-new') return await handOver(input, state);
      settle(rt, stage, outcome);
      log.info('stage finished', { stage, status: report.status, documents: report.documents, credits: report.credits, ...(report.reason ? { reason: report.reason } : {}) });
      state.next += 1;
    }
  } catch (err) {
    if (isCancellation(err)) {
      rt.status = 'cancelled';
      // What was running when the run was cancelled shows as cancelled, not running forever.
      for (const report of Object.values(state.reports)) {
        if (report?.status === 'running') {
          report.status = 'cancelled';
          report.reason ??= 'run cancelled';
        }
      }
      rt.publish();
    }
    throw err;
  }

  if (!state.reports.support) {
    state.reports.support = { status: 'skipped', credits: 0, reason: stageEnabled(state.config, 'support') ? 'no stage failed' : 'switched off' };
  }
  rt.stage = 'done';
  rt.status = overallStatus(state);
  if (state.changes) await reportChanges(rt);
  rt.publish();
  log.info('pipeline finished', { status: rt.status, documents: rt.documents(), credits: state.credits.spent });
  await condition(allHandlersFinished);
  return {
    status: rt.status as PipelineResult['status'],
    runId: state.runId,
    url: state.config.url,
    stages: state.reports,
    credits: state.credits,
    documents: rt.documents(),
    jobs: state.jobs,
    store: { runId: state.runId },
    continuedAsNew: state.continuedAsNew,
    ...(state.changes?.report ? { changes: state.changes.report } : {}),
  };
}

/** Counts what changed since the series' baseline, records a completed run as the next baseline, sends the summary. */
async function reportChanges(rt: PipelineRuntime): Promise<void> {
  const { state } = rt;
  const changes = state.changes as NonNullable<PipelineState['changes']>;
  const config = state.config.changes as NonNullable<PipelineState['config']['changes']>;
  const report = await lists.closeSeriesRun.executeWithOptions(
    { summary: `series ${config.series}: compare with ${changes.previousRunId ?? '(first run)'}` },
    [{ series: config.series, runId: state.runId, workflowId: workflowInfo().workflowId, previousRunId: changes.previousRunId, record: rt.status === 'completed' }],
  );
  if (config.webhookUrl) {
    report.webhook = await reads.sendChangeSummary.executeWithOptions(
      { summary: `series ${config.series}: summary webhook` },
      [{ url: config.webhookUrl, workflowId: workflowInfo().workflowId, status: rt.status, report }],
    ).catch((err: unknown) => {
      if (isCancellation(err)) throw err;
      return `failed: ${failureText(err)}`;
    });
  }
  changes.report = report;
  const c = report.counts;
  log.info('changes reported', { series: config.series, previousRunId: changes.previousRunId, ...c, ...(report.webhook ? { webhook: report.webhook } : {}) });
}

async function runStage(rt: PipelineRuntime, stage: (typeof ORDER)[number]): Promise<StageOutcome> {
  try {
    return await RUNNERS[stage](rt);
  } catch (err) {
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
async function repair(rt: PipelineRuntime, stage: (typeof ORDER)[number], failed: Extract<StageOutcome, { kind: 'failed' }>): Promise<StageOutcome> {
  const { state } = rt;
  const fixable = stage === 'crawl' || stage === 'batch' || stage === 'interact' ? (stage as FixableStage) : undefined;
  if (!fixable || !stageEnabled(state.config, 'support') || state.retried.includes(stage)) return failed;

  const supportReport = rt.report('support');
  // This service has no support ask (learned from an earlier stage): do not ask again.
  if (supportReport.notAvailable?.length) {
    rt.report(stage).support = { answer: `support ask is ${NOT_AVAILABLE}`, confidence: 'low', applied: false, fixParameters: null };
    return failed;
  }
  supportReport.status = 'running';
  rt.stage = 'support';
  rt.publish();
  let askError: unknown;
  const answer = await support.askSupport.executeWithOptions(
    { summary: `support ask: ${stage} failed` },
    [{
      body: {
        question: `The ${stage} stage of my pipeline failed: ${failed.reason}. What should I change?`.slice(0, 8000),
        rationale: 'A durable pipeline wants machine-usable fix parameters to retry this stage once.',
        ...(failed.jobId ? { jobId: failed.jobId } : {}),
        context: { stage, url: state.config.url, options: stageOptions(state, fixable) },
      },
    }],
  ).catch((err: unknown) => {
    if (isCancellation(err)) throw err;
    askError = err;
    return null;
  });
  rt.stage = stage;
  const report = rt.report(stage);
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
    rt.publish();
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
  rt.publish();
  const retried = await runStage(rt, stage);
  if (retried.kind === 'ok') report.status = 'repaired';
  return retried.kind === 'ok' ? { kind: 'ok' } : retried;
}

function stageOptions(state: PipelineState, stage: FixableStage): unknown {
  return stage === 'crawl' ? state.config.crawl ?? {} : stage === 'batch' ? state.config.batch ?? {} : state.config.interact ?? {};
}

function settle(rt: PipelineRuntime, stage: StageName, outcome: StageOutcome): void {
  const report = rt.report(stage);
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
  rt.publish();
}

function overallStatus(state: PipelineState): PipelineResult['status'] {
  const reports = Object.values(state.reports);
  const failed = reports.some((r) => r?.status === 'failed');
  const documents = reports.reduce((n, r) => n + (r?.documents ?? 0), 0);
  if (!failed) return 'completed';
  return documents > 0 ? 'partial' : 'failed';
}

async function handOver(input: PipelineInput, state: PipelineState): Promise<never> {
  await condition(allHandlersFinished);
  state.continuedAsNew += 1;
  log.info('continuing as new', { next: ORDER[state.next] ?? 'done', continuedAsNew: state.continuedAsNew });
  return continueAsNew<typeof webDataPipeline>(input, state);
}
