// One crawl + collect through the Temporal pipeline (map, select, batch and interact off),
// on a worker listening to `taskQueue`.
import type { Client } from '@temporalio/client';
import { startPipeline } from '../../src/client/pipeline.js';
import type { PipelineResult } from '../../src/workflows/state.js';

export interface PipelineCrawl {
  workflowId: string;
  firstRunId: string;
  jobId: string;
  documents: number;
  status: string;
  continuedAsNew: number;
  /** Epoch ms `handle.result()` returned: the caller knows every page is in the store. */
  endedAt: number;
  result: PipelineResult;
}

export interface PipelineCrawlOptions {
  url: string;
  limit: number;
  taskQueue: string;
  /** Webhook receiver URL; without it the workflow learns of completion by polling only. */
  webhookUrl?: string;
  workflowId?: string;
}

let counter = 0;

export async function pipelineCrawl(client: Client, options: PipelineCrawlOptions): Promise<PipelineCrawl> {
  const workflowId = options.workflowId ?? `bench-${Date.now()}-${++counter}`;
  const handle = await startPipeline(client, {
    url: options.url,
    stages: { map: false, select: false, batch: false, interact: false },
    crawl: { limit: options.limit },
    ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
  }, { taskQueue: options.taskQueue, workflowId });
  // startPipeline's declared type drops it, but the handle is the one client.workflow.start returns.
  const firstRunId = (handle as { firstExecutionRunId?: string }).firstExecutionRunId;
  if (!firstRunId) throw new Error('pipeline handle without firstExecutionRunId');
  const result = await handle.result();
  const endedAt = Date.now();
  const crawl = result.stages.crawl;
  return {
    workflowId,
    firstRunId,
    jobId: crawl?.jobId ?? '',
    documents: crawl?.documents ?? 0,
    status: `${result.status}/${crawl?.status ?? '?'}`,
    continuedAsNew: result.continuedAsNew,
    endedAt,
    result,
  };
}
