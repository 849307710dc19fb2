// parseDocuments: parses a list of files (paths the worker can read) into the document store
// (kind `parse`, one document per file), a few at a time. Each file's parse is retried on
// transient failures by its activity retry policy; a file that still fails is recorded in the
// store as a failure with its error, and the others go on. A credit budget stops starting new
// files when the next one's cost would pass it (the rest are reported skipped). The `progress`
// query tells files done/failed/skipped/running of the total and the credits; long lists
// continue as new every `filesPerRun` files, so the history stays bounded.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { pageCredits } from 'webdata-contract/rules';
import type { createActivities } from '../activities/index.js';
import { parseRetryPolicy } from '../shared/retry-policies.js';
import { CREDITS, OUTCOME, PAGES } from '../search-attributes.js';
import { reads } from './activities.js';
import { apiKeyRefFailure, requireApiKeyRefCarrier } from './api-key-ref.js';
import { parseProgressQuery } from './definitions.js';
import { withRunPriority } from './run-priority.js';
import type { ParseDocumentsConfig, ParseDocumentsInput } from './parse-documents-input.js';
import { checkParseDocumentsInput } from './parse-documents-check.js';
import { filePath, ParseDocumentsInputError } from './parse-documents-fields.js';
import { failureText, NOT_AVAILABLE, notAvailableMessage } from './report-notes.js';

type Activities = ReturnType<typeof createActivities>;

/** Failures listed in the result and the progress; the store has every one. */
const LISTED_FAILURES = 20;

export type ParseDocumentsStatus = 'running' | 'completed' | 'partial' | 'failed' | 'cancelled';

export interface ParseFileFailure {
  path: string;
  /** `kind: message` of the last attempt. */
  error: string;
  /** The error kind (`validation`, `server`...) or the service's code. */
  code: string;
}

export interface ParseDocumentsCredits {
  budget: number | null;
  spent: number;
  /** Why files were not started (budget, the service out of credits), in order. */
  events: string[];
}

export interface ParseDocumentsProgress {
  status: ParseDocumentsStatus;
  total: number;
  /** Files parsed and stored. */
  done: number;
  /** Files that failed after their retries (recorded in the store's failures). */
  failed: number;
  /** Files not started: the budget, or the service stopped taking files. */
  skipped: number;
  /** Files being parsed now. */
  running: number;
  credits: ParseDocumentsCredits;
  /** The first failures (the store has all). */
  failures: ParseFileFailure[];
  continuedAsNew: number;
}

export interface ParseDocumentsResult extends Omit<ParseDocumentsProgress, 'running' | 'status'> {
  status: Exclude<ParseDocumentsStatus, 'running' | 'cancelled'>;
  runId: string;
  /** Why files were skipped, when some were. */
  reason?: string;
  /** Where the documents (jobId `parse:<path>`) and failures are. */
  store: { runId: string };
}

/** What a continue-as-new carries; the files themselves are in the input. */
export interface ParseDocumentsState {
  runId: string;
  /** Index of the next file to start. */
  next: number;
  done: number;
  failed: number;
  credits: ParseDocumentsCredits;
  failures: ParseFileFailure[];
  /** Set once no further file is started (budget, service out of credits, no parse route). */
  stopped?: string;
  continuedAsNew: number;
}

export { parseProgressQuery };

function validated(input: ParseDocumentsInput): ParseDocumentsConfig {
  try {
    return checkParseDocumentsInput(input);
  } catch (err) {
    if (err instanceof ParseDocumentsInputError) {
      throw ApplicationFailure.create({ message: err.message, type: 'validation', nonRetryable: true, details: [err.issues] });
    }
    throw err;
  }
}

/** The service's error code of an activity failure, else its kind. */
function failureCode(err: unknown): string {
  const cause = (err as { cause?: { type?: string; details?: unknown[] } }).cause;
  const details = cause?.details?.[0] as { code?: unknown } | undefined;
  return typeof details?.code === 'string' ? details.code : (cause?.type ?? 'error');
}

function failureKind(err: unknown): string | undefined {
  return (err as { cause?: { type?: string } }).cause?.type;
}

export async function parseDocuments(input: ParseDocumentsInput, carried?: ParseDocumentsState): Promise<ParseDocumentsResult> {
  const config = validated(input);
  requireApiKeyRefCarrier(config.apiKeyRef);
  const state: ParseDocumentsState = carried ?? {
    runId: config.runId ?? workflowInfo().workflowId,
    next: 0,
    done: 0,
    failed: 0,
    credits: { budget: config.budget?.credits ?? null, spent: 0, events: [] },
    failures: [],
    continuedAsNew: 0,
  };
  const total = config.files.length;
  const perFile = pageCredits(config.options?.formats);
  const parses = withRunPriority(proxyActivities<Activities>({
    // A 50 MB upload and its conversion; the activity heartbeats while it waits.
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '30 seconds',
    retry: parseRetryPolicy(config.maxAttempts),
  }));
  let running = 0;
  let status: ParseDocumentsStatus = 'running';
  const skipped = () => (status === 'running' ? (state.stopped ? total - state.next : 0) : total - state.done - state.failed);
  const progress = (): ParseDocumentsProgress => ({
    status,
    total,
    done: state.done,
    failed: state.failed,
    skipped: skipped(),
    running,
    credits: state.credits,
    failures: state.failures,
    continuedAsNew: state.continuedAsNew,
  });
  const publish = () => {
    const c = state.credits;
    setCurrentDetails(`**parse** · ${status} · ${state.done} done · ${state.failed} failed · ${skipped()} skipped · ${running} running of ${total} files · ${c.spent}${c.budget === null ? '' : ` / ${c.budget}`} credits`);
  };
  setHandler(parseProgressQuery, progress);

  const stop = (why: string) => {
    if (state.stopped) return;
    state.stopped = why;
    state.credits.events.push(why);
    log.info('parseDocuments: no more files started', { reason: why, next: state.next, total });
  };

  async function parseOne(index: number): Promise<void> {
    const file = config.files[index];
    const path = filePath(file);
    try {
      const result = await parses.parse.executeWithOptions(
        { summary: `parse files.${index} ${path.split(/[\\/]/).pop()}` },
        [{
          runId: state.runId,
          path,
          ...(typeof file !== 'string' && file.filename ? { filename: file.filename } : {}),
          ...(typeof file !== 'string' && file.contentType ? { contentType: file.contentType } : {}),
          ...(config.options ? { options: config.options } : {}),
        }],
      );
      state.done += 1;
      state.credits.spent += Math.max(0, result.creditsUsed);
    } catch (err) {
      if (isCancellation(err)) throw err;
      // A key name the worker cannot use ends the run: every file would fail the same way.
      const keyRef = apiKeyRefFailure(err);
      if (keyRef) throw keyRef;
      // No parse route on this service: nothing will parse; this file and the rest are skipped.
      const missing = notAvailableMessage(err);
      if (missing !== undefined) {
        stop(`parse is ${NOT_AVAILABLE}: ${missing}`);
        return;
      }
      state.failed += 1;
      const failure: ParseFileFailure = { path, error: failureText(err), code: failureCode(err) };
      if (state.failures.length < LISTED_FAILURES) state.failures.push(failure);
      await reads.recordParseFailure.executeWithOptions(
        { summary: `record failure of files.${index}` },
        [{ runId: state.runId, path, error: failure.error, code: failure.code }],
      );
      // The team is out of credits: every further file would fail the same way.
      if (failureKind(err) === 'insufficient_credits') stop(`service: insufficient credits at files.${index}; no further file started`);
    }
  }

  try {
    let startedThisRun = 0;
    let failure: unknown;
    while (state.next < total && !state.stopped && failure === undefined) {
      if (startedThisRun >= config.filesPerRun || workflowInfo().continueAsNewSuggested) {
        await condition(() => running === 0);
        if (failure !== undefined) break;
        await condition(allHandlersFinished);
        state.continuedAsNew += 1;
        log.info('parseDocuments: continuing as new', { next: state.next, total, continuedAsNew: state.continuedAsNew });
        return await continueAsNew<typeof parseDocuments>(input, state);
      }
      await condition(() => running < config.concurrency || failure !== undefined);
      if (failure !== undefined || state.stopped) break;
      // Start a file only when its cost fits next to what is spent and what is in flight.
      if (state.credits.budget !== null) {
        const fits = () => state.credits.spent + running * perFile + perFile <= (state.credits.budget as number);
        if (!fits()) await condition(() => running === 0 || fits());
        if (failure !== undefined || state.stopped) break;
        if (!fits()) {
          const path = filePath(config.files[state.next]);
          stop(`budget: stopped before files.${state.next} (${path}): ${state.credits.spent} of ${state.credits.budget} credits spent, a file costs ${perFile}`);
          break;
        }
      }
      const index = state.next;
      state.next += 1;
      startedThisRun += 1;
      running += 1;
      publish();
      // Runs beside the loop; the loop waits on `running`, and an unexpected failure ends it.
      void parseOne(index)
        .catch((err: unknown) => {
          failure ??= err;
        })
        .finally(() => {
          running -= 1;
          publish();
        });
    }
    await condition(() => running === 0);
    if (failure !== undefined) throw failure;
  } catch (err) {
    if (isCancellation(err)) {
      status = 'cancelled';
      publish();
    }
    throw err;
  }

  status = state.done === total ? 'completed' : state.done === 0 ? 'failed' : 'partial';
  publish();
  upsertSearchAttributes([
    { key: OUTCOME, value: status },
    { key: PAGES, value: state.done },
    { key: CREDITS, value: Math.round(state.credits.spent) },
  ]);
  log.info('parseDocuments finished', { status, total, done: state.done, failed: state.failed, skipped: total - state.done - state.failed, credits: state.credits.spent });
  await condition(allHandlersFinished);
  return {
    status,
    runId: state.runId,
    total,
    done: state.done,
    failed: state.failed,
    skipped: total - state.done - state.failed,
    credits: state.credits,
    failures: state.failures,
    ...(state.stopped ? { reason: state.stopped } : {}),
    store: { runId: state.runId },
    continuedAsNew: state.continuedAsNew,
  };
}
