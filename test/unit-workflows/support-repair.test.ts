// Self-repair through support ask, with stubbed activities: a failed crawl asks support with its
// job id; an accepted fix is applied and the stage retried once (a new idempotency key); a fix
// touching a field the stage does not allow is refused; a retried stage is never asked about twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SupportAnswer } from '../../src/activities/types.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { collected, crawlInput, siteStubs, summary } from './pipeline-stubs.js';

let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

const answer = (fixParameters: Record<string, unknown>, confidence: SupportAnswer['confidence'] = 'high'): SupportAnswer => ({
  answer: 'The crawl found nothing under that depth; lower maxDiscoveryDepth.',
  confidence,
  fixParameters,
  validation: null,
  durationMs: 5,
});

/** A site whose crawl jobs fail, except those listed in `succeeding`. */
function failingCrawl(fix: SupportAnswer, succeeding: string[] = []) {
  const status = (jobId: string) => (succeeding.includes(jobId) ? 'completed' : 'failed');
  return siteStubs({
    getJobSummary: (input) => ({ ...summary('crawl', input.jobId, status(input.jobId)), ...(status(input.jobId) === 'failed' ? { error: 'crawl timed out' } : {}) }),
    followJob: (input) => ({
      kind: 'done',
      summary: { ...summary('crawl', input.jobId, status(input.jobId)), ...(status(input.jobId) === 'failed' ? { error: 'crawl timed out' } : {}) },
      collected: collected('crawl', input.jobId, input.runId, status(input.jobId) === 'failed' ? 0 : 3),
    }),
    askSupport: () => fix,
  });
}

async function run(workflowId: string, stubs: ReturnType<typeof siteStubs>) {
  return wt.with(stubs, () =>
    wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [crawlInput({ crawl: { maxDiscoveryDepth: 5 } })] }));
}

describe('support repair', () => {
  test('an accepted fix is applied and the crawl retried once, under a new idempotency key', async () => {
    const stubs = failingCrawl(answer({ maxDiscoveryDepth: 1, limit: 2 }), ['crawl-2']);
    const result = await run('repair-applied', stubs);

    const [ask] = stubs.inputs('askSupport');
    assert.equal(ask.body.jobId, 'crawl-1');
    assert.match(ask.body.question, /crawl stage .* failed: crawl timed out/);
    assert.deepEqual((ask.body.context as { stage: string }).stage, 'crawl');

    const starts = stubs.inputs('startCrawl');
    assert.equal(starts.length, 2);
    assert.equal(starts[0].body.maxDiscoveryDepth, 5);
    assert.equal(starts[1].body.maxDiscoveryDepth, 1);
    assert.equal(starts[1].body.limit, 2);
    assert.notEqual(starts[0].idempotencyKey, starts[1].idempotencyKey);
    assert.deepEqual(result.jobs, { 'crawl#1': 'crawl-1', 'crawl#2': 'crawl-2' });

    assert.equal(result.stages.crawl?.status, 'repaired');
    assert.equal(result.stages.crawl?.support?.applied, true);
    assert.equal(result.stages.support?.status, 'completed');
    assert.equal(result.status, 'completed');
  });

  test('a fix touching a field the crawl does not allow is refused: no retry, the stage fails', async () => {
    const stubs = failingCrawl(answer({ url: 'http://elsewhere.test/', limit: 2 }));
    const result = await run('repair-refused', stubs);
    assert.equal(stubs.inputs('startCrawl').length, 1);
    assert.equal(stubs.inputs('askSupport').length, 1);
    const crawl = result.stages.crawl;
    assert.equal(crawl?.status, 'failed');
    assert.equal(crawl?.reason, 'crawl timed out');
    assert.equal(crawl?.support?.applied, false);
    assert.equal(crawl?.support?.why, 'fix touches fields not allowed for crawl: url');
    assert.equal(result.status, 'failed');
  });

  test('a fix below the minimum confidence is not applied', async () => {
    const stubs = failingCrawl(answer({ limit: 2 }, 'low'));
    const result = await run('repair-low-confidence', stubs);
    assert.equal(stubs.inputs('startCrawl').length, 1);
    assert.equal(result.stages.crawl?.support?.why, 'confidence low is below medium');
  });

  test('a retried crawl that fails again is reported failed, support asked once', async () => {
    const stubs = failingCrawl(answer({ limit: 2 }));
    const result = await run('repair-twice', stubs);
    assert.equal(stubs.inputs('startCrawl').length, 2);
    assert.equal(stubs.inputs('askSupport').length, 1);
    assert.equal(result.stages.crawl?.status, 'failed');
  });
});
