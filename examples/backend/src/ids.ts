// Names shared by the workflow and the server (no imports: workflow code loads it too).

/** The pipeline child's workflow id: the crawl's own id with a suffix, so one crawl has one pipeline. */
export function pipelineWorkflowId(crawlId: string): string {
  return `${crawlId}-pipeline`;
}
