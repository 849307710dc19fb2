// Continue-as-new hand-over, with stubbed activities. The pipeline hands its state to the next
// run when the server suggests it (the time-skipping server never does), so the pipeline's cases
// start a run with the state a hand-over carries and check that it resumes, never restarts:
// the crawl job is followed from its cursor, the agent's job is polled, not started again.
// parseDocuments hands over every `filesPerRun` files, which the test drives for real.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipelineInput, type PipelineInput } from '../../src/workflows/input.js';
import type { parseDocuments } from '../../src/workflows/parse-documents.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { PipelineState } from '../../src/workflows/state.js';
import { stubActivities } from '../helpers/stub-activities.js';
import { TARGET_HOST } from '../../src/search-attributes.js';
import { hostOf } from '../../src/workflows/host.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { crawlInput, siteStubs, storeRef } from './pipeline-stubs.js';

/** These inputs name public test hosts; the address rule is tested in test/hostile. */
const PUBLIC_ONLY = { allowPrivateAddresses: false };

let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

/** The state a run hands over after map and select, at stage `next` (index in the stage order). */
function handedOver(input: PipelineInput, next: number, extra: Partial<PipelineState>): PipelineState {
  return {
    config: parsePipelineInput(input, PUBLIC_ONLY),
    runId: 'handed-over',
    next,
    reports: { map: { status: 'completed', credits: 1, urls: 3 }, select: { status: 'completed', credits: 0, urls: 3 } },
    credits: { budget: null, spent: 1, byStage: { map: 1 }, events: [] },
    jobs: {},
    lists: { mapped: 'mapped', selected: 'selected' },
    selectedCount: 3,
    retried: [],
    continuedAsNew: 1,
    idempotencyKeys: {},
    ...extra,
  };
}

describe('continue-as-new', () => {
  test('pipeline: a crawl job handed over is followed on from its cursor, not started again', async () => {
    const stubs = siteStubs();
    const input = crawlInput();
    const cursor = { skip: 2, pages: 1, written: 2 };
    const state = handedOver(input, 2, {
      reports: { map: { status: 'completed', credits: 1 }, select: { status: 'completed', credits: 0 }, crawl: { status: 'running', credits: 0, jobId: 'crawl-7' } },
      jobs: { 'crawl#1': 'crawl-7' },
      idempotencyKeys: { 'crawl#1': 'key-1' },
      activeJob: { kind: 'crawl', stage: 'crawl', jobId: 'crawl-7', allowance: null, tight: false, follow: { cursor } },
    });
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'can-crawl', args: [input, state] }));
    assert.deepEqual(stubs.inputs('startCrawl'), []);
    assert.deepEqual(stubs.inputs('mapToStore'), []);
    const [follow] = stubs.inputs('followJob');
    assert.equal(follow.jobId, 'crawl-7');
    assert.deepEqual(follow.cursor, cursor);
    assert.equal(result.stages.crawl?.status, 'completed');
    assert.deepEqual(result.jobs, { 'crawl#1': 'crawl-7' });
    assert.equal(result.continuedAsNew, 1);
  });

  test('pipeline: a run that keeps its host out of visibility still does after a hand-over (the memo is not carried, the state is)', async () => {
    const input = crawlInput();
    const shown = async (workflowId: string, extra: Partial<PipelineState>) => {
      await wt.with(siteStubs(), () =>
        wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [input, handedOver(input, 2, extra)] }));
      return (await wt.env.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(TARGET_HOST);
    };
    // Handed over with no memo, as a continue-as-new starts the next run.
    assert.equal(await shown('can-host-hidden', { hostHidden: true }), undefined);
    assert.equal(await shown('can-host-shown', {}), hostOf(input.url));
  });

  test('pipeline: the agent job handed over is polled to its end, not started again; its credits counted', async () => {
    const stubs = siteStubs({
      getAgent: (input) => ({ id: input.id, status: 'completed', creditsUsed: 4, stored: true, ref: storeRef('handed-over', { jobId: input.id }) }),
    });
    const input = crawlInput({ agent: { prompt: 'Summarise the pricing page.' } });
    const state = handedOver(input, 5, {
      reports: { map: { status: 'completed', credits: 1 }, select: { status: 'completed', credits: 0 }, crawl: { status: 'completed', credits: 3, documents: 3 }, agent: { status: 'running', credits: 0, jobId: 'agent-9' } },
      jobs: { 'agent#1': 'agent-9' },
      agentJob: { jobId: 'agent-9', maxCredits: 10 },
    });
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'can-agent', args: [input, state] }));
    assert.deepEqual(stubs.inputs('startAgent'), []);
    assert.deepEqual(stubs.inputs('getAgent').map((i) => i.id), ['agent-9']);
    assert.equal(result.stages.agent?.status, 'completed');
    assert.equal(result.credits.byStage.agent, 4);
    assert.equal(result.credits.spent, 5);
  });

  test('parseDocuments: 5 files at 2 a run continue as new twice; each file parsed once, counts carried', async () => {
    const files = ['/data/a.pdf', '/data/b.pdf', '/data/c.pdf', '/data/d.pdf', '/data/e.pdf'];
    const stubs = stubActivities({
      parse: (input) => ({ url: input.path, creditsUsed: 1, stored: true, ref: storeRef('parse-can') }),
    });
    const result = await wt.with(stubs, () =>
      wt.env.client.workflow.execute<typeof parseDocuments>('parseDocuments', {
        taskQueue: wt.taskQueue,
        workflowId: 'parse-can',
        args: [{ files, filesPerRun: 2, concurrency: 1 }],
      }));
    assert.deepEqual(stubs.inputs('parse').map((i) => i.path), files);
    assert.equal(result.continuedAsNew, 2);
    assert.equal(result.done, 5);
    assert.equal(result.credits.spent, 5);
    assert.equal(result.status, 'completed');
    assert.equal(result.runId, 'parse-can');
  });
});

