// customerCrawl on the time-skipping test server, its activities mocked and the pipeline child
// replaced by a fake of the same type name (test-support/fake-pipeline-workflows.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { PipelineInput, PipelineResult } from 'webdata-temporal';
import type { CrawlSummary, ExampleActivities } from './activities.js';
import { startTimeSkipping } from './test-support/time-skipping.js';
import type { FakePipelineActivities } from './test-support/fake-pipeline-workflows.js';
import { customerCrawl } from './workflows.js';

const workflowsPath = fileURLToPath(new URL(`./test-support/fake-pipeline-workflows${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
const pipeline: PipelineInput = { url: 'https://docs.example.com/', select: { limit: 5 }, crawl: { limit: 5 }, webhookUrl: 'https://backend.example.com/webhooks' };

let env: TestWorkflowEnvironment;
before(async () => {
  env = await startTimeSkipping();
});
after(async () => {
  await env?.teardown();
});

function completed(input: PipelineInput): PipelineResult {
  return {
    status: 'completed', runId: 'crawl-acme-1-pipeline', url: input.url, stages: {}, documents: 7, jobs: {}, continuedAsNew: 0,
    credits: { budget: null, spent: 8, byStage: {}, events: [] },
    store: { runId: 'crawl-acme-1-pipeline' },
  };
}

/** Runs one crawl on a worker with `pipelineResult` as the fake pipeline's answer; returns its summary and what the mocks saw. */
async function runCrawl(id: string, pipelineResult: FakePipelineActivities['pipelineResult']) {
  const recorded: CrawlSummary[] = [];
  const childInputs: PipelineInput[] = [];
  const activities: ExampleActivities & FakePipelineActivities = {
    async recordCrawlSummary(summary) {
      recorded.push(summary);
    },
    async pipelineResult(input) {
      childInputs.push(input);
      return pipelineResult(input);
    },
  };
  const taskQueue = `test-${id}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities });
  const summary = await worker.runUntil(env.client.workflow.execute(customerCrawl, { workflowId: id, taskQueue, args: [{ customer: 'acme', pipeline }] }));
  return { summary, recorded, childInputs };
}

test('a completed pipeline: the child gets the input as prepared, and the crawl records its summary for the customer', async () => {
  const { summary, recorded, childInputs } = await runCrawl('crawl-acme-1', async (input) => completed(input));
  assert.deepEqual(childInputs, [pipeline]);
  assert.equal(recorded.length, 1);
  assert.deepEqual(recorded[0], summary);
  assert.equal(summary.customer, 'acme');
  assert.equal(summary.crawlId, 'crawl-acme-1');
  assert.equal(summary.pipelineWorkflowId, 'crawl-acme-1-pipeline');
  assert.equal(summary.status, 'completed');
  assert.equal(summary.documents, 7);
  assert.equal(summary.credits, 8);
  assert.equal(summary.storeRunId, 'crawl-acme-1-pipeline');
  // The child is a workflow of its own, under the id the server reads its progress from.
  const child = await env.client.workflow.getHandle('crawl-acme-1-pipeline').describe();
  assert.equal(child.type, 'webDataPipeline');
  assert.equal(child.status.name, 'COMPLETED');
});

test('a failed pipeline: the crawl still completes, and the customer\'s summary says failed with the pipeline\'s reason', async () => {
  const { summary, recorded } = await runCrawl('crawl-acme-2', async () => {
    throw ApplicationFailure.nonRetryable('crawl stage failed: the site answered 503', 'StageFailed');
  });
  assert.equal(recorded.length, 1);
  assert.equal(summary.status, 'failed');
  assert.equal(summary.documents, 0);
  assert.match(summary.reason ?? '', /the site answered 503/);
});

test('a partial pipeline result is recorded as partial, with the documents it stored', async () => {
  const { summary } = await runCrawl('crawl-acme-3', async (input) => ({ ...completed(input), status: 'partial', documents: 3 }));
  assert.equal(summary.status, 'partial');
  assert.equal(summary.documents, 3);
});
