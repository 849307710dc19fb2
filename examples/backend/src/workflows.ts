// The example's own workflow: one crawl for one customer. It runs the package's pipeline as a
// child workflow and then acts on the result with an activity of its own (a summary per
// customer). Workflow code: deterministic, no I/O; the pipeline is referred to by its type name
// and imported as a type only, so this module does not pull the pipeline into every bundle (the
// worker bundles both: worker-workflows.ts; the tests bundle a fake of the same name).
import { ApplicationFailure, executeChild, isCancellation, proxyActivities, ParentClosePolicy, workflowInfo } from '@temporalio/workflow';
import type { PipelineInput, PipelineResult } from 'webdata-temporal';
import type { webDataPipeline } from 'webdata-temporal/workflows';
import type { CrawlSummary, ExampleActivities } from './activities.js';
import { pipelineWorkflowId } from './ids.js';

/** The package's pipeline workflow type (its exported function's name). */
export const PIPELINE_WORKFLOW = 'webDataPipeline';

export interface CustomerCrawlInput {
  customer: string;
  /** The pipeline's input, as the starter prepared it (`preparePipelineInput`). */
  pipeline: PipelineInput;
}

const { recordCrawlSummary } = proxyActivities<ExampleActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

export async function customerCrawl(input: CustomerCrawlInput): Promise<CrawlSummary> {
  const crawlId = workflowInfo().workflowId;
  const pipelineId = pipelineWorkflowId(crawlId);
  const base = { customer: input.customer, crawlId, pipelineWorkflowId: pipelineId, url: input.pipeline.url };
  let summary: CrawlSummary;
  try {
    const result: PipelineResult = await executeChild<typeof webDataPipeline>(PIPELINE_WORKFLOW, {
      workflowId: pipelineId,
      args: [input.pipeline],
      // Cancelling the crawl cancels the pipeline, which cancels its jobs on the service.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
    summary = {
      ...base,
      status: result.status,
      documents: result.documents,
      credits: result.credits.spent,
      storeRunId: result.runId,
      finishedAt: new Date().toISOString(),
    };
  } catch (err) {
    // A cancelled crawl ends cancelled (its pipeline was cancelled with it), not recorded as failed.
    if (isCancellation(err)) throw err;
    // The pipeline failed as a whole (a refused input, a stage that could not be repaired): the
    // customer's record says so, with the cause, and the crawl itself completes.
    summary = { ...base, status: 'failed', documents: 0, credits: 0, reason: causeOf(err), finishedAt: new Date().toISOString() };
  }
  await recordCrawlSummary(summary);
  return summary;
}

/** The innermost failure's message: the pipeline's own reason, not "child workflow failed". */
function causeOf(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (current instanceof ApplicationFailure || current instanceof Error) return current.message;
  return String(current);
}
