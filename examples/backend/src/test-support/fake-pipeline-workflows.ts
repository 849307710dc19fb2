// The workflows module of the workflow tests: the example's own workflow and, under the
// pipeline's type name, a fake pipeline. The fake sleeps an hour (the time-skipping server skips
// it) and answers what the test's `pipelineResult` activity returns, so each test decides the
// pipeline's outcome and sees the input the child got.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { PipelineInput, PipelineResult } from 'webdata-temporal';

export { customerCrawl } from '../workflows.js';

export interface FakePipelineActivities {
  pipelineResult(input: PipelineInput): Promise<PipelineResult>;
}

const { pipelineResult } = proxyActivities<FakePipelineActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1 } });

export async function webDataPipeline(input: PipelineInput): Promise<PipelineResult> {
  await sleep('1 hour');
  return pipelineResult(input);
}
