// The hosted service cuts a crawl's or batch's limit to the team's remaining credits without an
// error or a warning field (contract notes "Credits"). A job that ended with fewer pages than
// asked while the team's credits ran out was cut: the run says so (a credits event, a note on
// the stage) and ends `partial`, not `completed`.
import { isCancellation, patched } from '@temporalio/workflow';
import { reads } from './activities.js';
import { addNote, failureText } from './report-notes.js';
import type { PipelineRuntime } from './runtime.js';

/**
 * The team's credits left, read by the collector that stored the job's last page, stand for the
 * read this check made by an activity of its own: the run then ends in the workflow task that
 * learns its last page is stored. Runs recorded without the marker read it by the activity.
 */
export const LIMIT_CUT_CREDITS_FROM_COLLECTOR = 'limit-cut-credits-from-collector';

/**
 * Checks a finished crawl or batch that asked for `requested` pages (each at least `perPage`
 * credits); `creditsLeft` is the team's remainingCredits when the collector read them.
 */
export async function checkLimitCut(pipeline: PipelineRuntime, stage: 'crawl' | 'batch', requested: number, perPage: number, creditsLeft?: number): Promise<void> {
  const report = pipeline.report(stage);
  const total = report.total !== undefined && report.total > 0 ? report.total : Number.POSITIVE_INFINITY;
  // Failures count as reached: a page that failed was tried, not cut.
  const reached = Math.min(total, (report.documents ?? 0) + (report.failures ?? 0));
  if (reached >= requested || report.reason !== undefined && report.reason.startsWith('cancelled at the budget')) return;
  let remaining: number;
  // Asked only when the collector's answer is in hand, so runs that need no read record no marker.
  if (creditsLeft !== undefined && patched(LIMIT_CUT_CREDITS_FROM_COLLECTOR)) {
    remaining = creditsLeft;
  } else {
    try {
      remaining = (await reads.getCreditUsage.executeWithOptions({ summary: `${stage}: ${reached} of ${requested} pages; team credits left?` }, [])).remainingCredits;
    } catch (err) {
      if (isCancellation(err)) throw err;
      // The check is auxiliary: without the credits route the job's pages stand as they are.
      addNote(report, `team credits unknown after ${reached} of ${requested} pages: ${failureText(err)}`);
      return;
    }
  }
  if (remaining >= perPage) return;
  const what = `${stage}: ${reached} of ${requested} pages, the team's credits ran out (${remaining} left): the service cut the job without an error`;
  pipeline.state.credits.events.push(what);
  addNote(report, `cut at the team's credits: ${reached} of ${requested} pages`);
  (pipeline.state.limitCuts ??= []).push(stage);
}
