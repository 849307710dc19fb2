// Starts a crawl once. The crawl's workflow id comes from the request (crawl-request.ts);
// Temporal refuses a second start with that id, whether the first run is still going or has
// ended (WorkflowIdReusePolicy REJECT_DUPLICATE), and the refusal is answered with the first
// run's ids. Two servers, a restart, or a client's retry all land on the same run.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { preparePipelineInput } from 'webdata-temporal';
import { crawlId, pipelineInputOf, type CrawlRequest } from './crawl-request.js';
import type { customerCrawl } from './workflows.js';

export interface StartedCrawl {
  id: string;
  /** Temporal's run id of the crawl: the same for every post of the same request. */
  runId: string;
  /** False when the request named a crawl that had already been started. */
  created: boolean;
}

export async function startCrawl(client: Client, taskQueue: string, request: CrawlRequest, webhookUrl: string): Promise<StartedCrawl> {
  const id = crawlId(request);
  // Validated here (PipelineInputError names the field), before anything starts, and with the
  // deployment's address setting recorded as the pipeline expects it.
  const pipeline = preparePipelineInput(pipelineInputOf(request, webhookUrl));
  try {
    const handle = await client.workflow.start<typeof customerCrawl>('customerCrawl', {
      taskQueue,
      workflowId: id,
      args: [{ customer: request.customer, pipeline }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
      staticSummary: `${request.customer}: crawl ${request.url}`,
    });
    return { id, runId: handle.firstExecutionRunId, created: true };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const described = await client.workflow.getHandle(id).describe();
    return { id, runId: described.runId, created: false };
  }
}
