// A governed batch (input.governor): the URLs left to scrape go in chunks of `chunkPages`, each
// its own batch job with its own share of the team, so a tenant who arrives while a large batch
// runs gets a share when the current chunk ends instead of when the whole batch does.
import { starts } from '../activities.js';
import { governedInput, withTeamShare, type Governed } from '../governed.js';
import type { PipelineRuntime } from '../runtime.js';
import { runJob } from './job.js';
import type { StageOutcome } from './types.js';

export async function runChunks(
  pipeline: PipelineRuntime,
  governor: Governed,
  options: { maxConcurrency?: number } & Record<string, unknown>,
  count: number,
  fit: { allowance: number; tight: boolean },
): Promise<StageOutcome> {
  const { state } = pipeline;
  const report = pipeline.report('batch');
  // Carried through continue-as-new: the chunk in progress resumes (state.activeJob), later ones follow.
  const done = (state.chunks ??= { done: 0, documents: 0, failures: 0, credits: 0 });
  const total = Math.ceil(count / governor.chunkPages);
  const list = state.lists.missing ?? 'missing';
  let outcome: StageOutcome = { kind: 'ok' };
  while (done.done < total) {
    const index = done.done;
    const offset = index * governor.chunkPages;
    const size = Math.min(governor.chunkPages, count - offset);
    const allowance = Number.isFinite(fit.allowance) ? Math.max(0, fit.allowance - done.credits) : fit.allowance;
    const chunk = await withTeamShare(pipeline, governor, `batch/${index}`, options.maxConcurrency, async (share) => {
      const result = await runJob(pipeline, {
        stage: 'batch',
        kind: 'batch',
        allowance,
        tight: fit.tight,
        keyName: `batch#chunk${index}`,
        start: (idempotencyKey) =>
          starts().startBatchScrape.executeWithOptions(
            { summary: `batch scrape chunk ${index + 1}/${total}: ${size} URLs, ${share} at once` },
            [{ urlsFrom: { runId: state.runId, list, offset, limit: size }, options: { ...options, maxConcurrency: share }, idempotencyKey, governed: governedInput(governor) }],
          ),
      });
      return { result, handedOver: result.kind === 'continue-as-new' };
    });
    if (chunk.kind === 'continue-as-new') return chunk;
    done.documents += chunk.collected?.documents ?? 0;
    done.failures += chunk.collected?.failures ?? 0;
    done.credits += report.credits ?? 0;
    done.done++;
    report.documents = done.documents;
    report.failures = done.failures;
    report.credits = done.credits;
    if (chunk.kind !== 'ok') {
      outcome = chunk;
      break;
    }
  }
  return outcome;
}
