// The hosted service cuts a crawl's or batch's limit to the team's remaining credits without an
// error or a warning field (contract notes "Credits"). A job that ended with fewer pages than
// asked while the team's credits ran out was cut: the run says so (a credits event, a note on
// the stage) and ends `partial`, not `completed`.
import { isCancellation } from '@temporalio/workflow';
import { reads } from './activities.js';
import { addNote, failureText } from './report-notes.js';
import type { PipelineRuntime } from './runtime.js';

/** Checks a finished crawl or batch that asked for `requested` pages (each at least `perPage` credits). */
export async function checkLimitCut(pipeline: PipelineRuntime, stage: 'crawl' | 'batch', requested: number, perPage: number): Promise<void> {
  const report = pipeline.report(stage);
  const total = report.total !== undefined && report.total > 0 ? report.total : Number.POSITIVE_INFINITY;
  // Failures count as reached: a page that failed was tried, not cut.
  const reached = Math.min(total, (report.documents ?? 0) + (report.failures ?? 0));
  if (reached >= requested || report.reason !== undefined && report.reason.startsWith('cancelled at the budget')) return;
  let remaining: number;
  try {
    remaining = (await reads.getCreditUsage.executeWithOptions({ summary: `${stage}: ${reached} of ${requested} pages; team credits left?` }, [])).remainingCredits;
  } catch (err) {
    if (isCancellation(err)) throw err;
    // The check is auxiliary: without the credits route the job's pages stand as they are.
    addNote(report, `team credits unknown after ${reached} of ${requested} pages: ${failureText(err)}`);
    return;
  }
  if (remaining >= perPage) return;
  const what = `${stage}: ${reached} of ${requested} pages, the team's credits ran out (${remaining} left): the service cut the job without an error`;
  pipeline.state.credits.events.push(what);
  addNote(report, `cut at the team's credits: ${reached} of ${requested} pages`);
  (pipeline.state.limitCuts ??= []).push(stage);
}
