// interact: run code or a prompt in the browser state of matching pages. Each page gets a
// fresh scrape (its id names the session), and the session is always stopped, also when the
// run is cancelled, in a non-cancellable scope.
import { CancellationScope } from '@temporalio/workflow';
import { DEFAULT_INTERACT_TIMEOUT_SEC } from 'webdata-contract/rules';
import type { InteractPageResult } from '../../activities/types.js';
import { browser, cleanup, lists } from '../activities.js';
import { awaitCredits } from '../budget.js';
import { interactWorstCase, spend } from '../credit-guard.js';
import { NOT_AVAILABLE, notAvailableMessage, noteNotAvailable } from '../report-notes.js';
import type { PipelineRuntime } from '../runtime.js';
import type { StageOutcome } from './types.js';

export async function runInteract(pipeline: PipelineRuntime): Promise<StageOutcome> {
  const { state } = pipeline;
  const interact = state.config.interact;
  if (!interact) return { kind: 'skipped', reason: 'no interact rule configured' };
  // Everything but the page selection is the interact request, passed through as configured.
  const { match: _match, maxPages: _maxPages, ...request } = interact;
  const report = pipeline.report('interact');
  const targets = await lists.findStoredPages.executeWithOptions(
    { summary: `pages matching ${interact.match}` },
    [{ runId: state.runId, match: interact.match, limit: interact.maxPages ?? 3 }],
  );
  report.urls = targets.length;
  if (targets.length === 0) return { kind: 'skipped', reason: `no stored page matches ${interact.match}` };

  const worstCase = interactWorstCase(interact.timeout ?? DEFAULT_INTERACT_TIMEOUT_SEC, interact.prompt !== undefined);
  const results: InteractPageResult[] = [];
  for (const url of targets) {
    if (!(await awaitCredits(pipeline, worstCase))) {
      state.credits.events.push(`interact: stopped before ${url} (budget)`);
      break;
    }
    // A fresh scrape: its id names the browser session that interact opens at this page.
    const scrape = await browser.scrape.executeWithOptions(
      { summary: `scrape ${url} for interact` },
      [{ runId: state.runId, body: { url } }],
    );
    spend(state.credits, 'interact', scrape.creditsUsed);
    report.credits += scrape.creditsUsed;
    let missing: string | undefined;
    try {
      const result = await browser.interact.executeWithOptions(
        { summary: `interact ${interact.language ?? (interact.prompt ? 'prompt' : 'node')} on ${url}` },
        [{ runId: state.runId, scrapeId: scrape.scrapeId, url, ...request }],
      );
      results.push(result);
    } catch (err) {
      // This service has no interact route (the open-source server): a missing feature skips
      // the stage with that reason; it is not a failure for support ask to repair.
      missing = notAvailableMessage(err);
      if (missing === undefined) throw err;
    } finally {
      const stopped = await CancellationScope.nonCancellable(() =>
        cleanup.stopInteraction.executeWithOptions({ summary: `stop session of ${scrape.scrapeId}` }, [{ scrapeId: scrape.scrapeId }]),
      );
      spend(state.credits, 'interact', stopped.creditsBilled);
      report.credits += stopped.creditsBilled;
      pipeline.publish();
    }
    if (missing !== undefined) {
      noteNotAvailable(report, 'interact');
      return { kind: 'skipped', reason: `${NOT_AVAILABLE}: ${missing}` };
    }
  }
  report.documents = results.filter((r) => r.success).length;
  report.outputs = results.map((r) => ({ url: r.url, preview: r.preview.slice(0, 200) }));
  const failed = results.find((r) => !r.success);
  if (failed) return { kind: 'failed', reason: `interact on ${failed.url} failed: ${failed.error ?? `exit ${failed.exitCode}`}`, jobId: failed.scrapeId };
  return { kind: 'ok' };
}
