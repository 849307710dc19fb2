// Runs over Temporal: start a pipeline for a URL, read a run's progress.
import { getProgress, startPipeline } from 'webdata-temporal';

/** Starts a run for `url`; bad input throws PipelineInputError (one line naming the field). */
export async function startRun(client, taskQueue, url) {
  const input = { url, select: { limit: 20 }, crawl: { limit: 20 } };
  const handle = await startPipeline(client, input, { taskQueue });
  return { id: handle.workflowId };
}

/** The run's workflow status and the pipeline's own progress (its `progress` query). */
export async function readRun(client, id) {
  const description = await client.workflow.getHandle(id).describe();
  const progress = await getProgress(client, id);
  return {
    id,
    workflowStatus: description.status.name,
    stage: progress.stage,
    status: progress.status,
    documents: progress.documents,
    credits: progress.credits.spent,
    stages: Object.fromEntries(Object.entries(progress.stages).map(([name, report]) => [name, report.status])),
  };
}
