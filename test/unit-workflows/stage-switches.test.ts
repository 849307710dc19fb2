// Each stage switched off (`stages: { <stage>: false }`), with stubbed activities on the
// time-skipping test server: the stage is reported skipped ("switched off"), none of its
// activities is called, the others run and the run does not fail; without map, select has
// nothing to select from; without crawl, batch takes the whole selection. (Moved from
// test/e2e/pipeline.test.ts, which keeps one full-stack run of every stage.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { ActivityName } from '../helpers/stub-activities.js';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { collected, SITE, siteStubs, storeRef, summary } from './pipeline-stubs.js';

let wt: WorkflowTests;

before(async () => {
  wt = await startWorkflowTests();
});
after(async () => {
  await wt?.teardown();
});

const STAGES = ['map', 'select', 'crawl', 'batch', 'interact', 'support'] as const;
type Stage = (typeof STAGES)[number];

/** The activities only a stage calls: none of them may run when it is switched off. */
const OWN: Record<Stage, ActivityName[]> = {
  map: ['mapToStore'],
  select: ['selectUrls'],
  crawl: ['startCrawl'],
  batch: ['diffUrls', 'startBatchScrape'],
  interact: ['findStoredPages', 'scrape', 'interact', 'stopInteraction'],
  support: ['askSupport'],
};

/** Every stage on, as test/e2e/pipeline.test.ts's base input: a selection, a crawl, an interact rule. */
function allOn(stages: PipelineInput['stages'] = {}): PipelineInput {
  return {
    url: SITE,
    select: { include: ['^/docs', '^/shop/catalog'] },
    crawl: { limit: 15, maxDiscoveryDepth: 2 },
    interact: { match: '/shop/catalog', code: '1', maxPages: 1 },
    stages,
  };
}

/** The site of pipeline-stubs.ts (3 mapped and selected URLs), with a batch of what the crawl missed and an interact page. */
function stubs(overrides: Parameters<typeof siteStubs>[0] = {}) {
  let missing = 0;
  return siteStubs({
    // The crawl (when there is one) returned 2 of the 3 selected URLs; without a crawl, batch takes all 3.
    diffUrls: (i) => {
      missing = i.coveredByJobs.length > 0 ? 1 : 3;
      return { count: missing, ref: storeRef(i.runId, { list: i.toList }), sample: [] };
    },
    filterRobots: (i) => ({ count: missing, skipped: 0, userAgent: 'test', ref: storeRef(i.runId, { list: i.toList }), skippedRef: storeRef(i.runId, { list: 'missing.robots' }), sample: [], skippedSample: [] }),
    getCreditUsage: () => ({ remainingCredits: 100_000, planCredits: 100_000, billingPeriodStart: null, billingPeriodEnd: null }),
    followJob: (i) => {
      const pages = i.kind === 'batch' ? (i.jobId === 'batch-2' ? 1 : 3) : 3;
      return { kind: 'done', summary: summary(i.kind, i.jobId, 'completed', pages), collected: collected(i.kind, i.jobId, i.runId, pages) };
    },
    findStoredPages: () => [`${SITE}shop/catalog`],
    scrape: () => ({ scrapeId: 'scrape-1', creditsUsed: 1 }) as never,
    interact: (i) => ({ url: i.url ?? '', scrapeId: i.scrapeId, success: true, exitCode: 0, killed: false, preview: '12' }),
    stopInteraction: () => ({ stopped: true, creditsBilled: 1, sessionDurationMs: 10 }),
    ...overrides,
  });
}

async function run(workflowId: string, input: PipelineInput, s: ReturnType<typeof stubs>) {
  return wt.with(s, () => wt.env.client.workflow.execute<typeof webDataPipeline>('webDataPipeline', { taskQueue: wt.taskQueue, workflowId, args: [input] }));
}

describe('a stage switched off', () => {
  test('every stage on: each of them runs (the baseline the cases below switch off)', async () => {
    const s = stubs();
    const result = await run('switches-all-on', allOn(), s);
    assert.equal(result.status, 'completed', JSON.stringify(result.stages));
    for (const stage of ['map', 'select', 'crawl', 'batch', 'interact'] as const) assert.equal(result.stages[stage]?.status, 'completed', stage);
    for (const stage of ['map', 'select', 'crawl', 'batch', 'interact'] as const) {
      for (const name of OWN[stage]) assert.ok(s.inputs(name).length > 0, `${stage}: ${name} not called`);
    }
    assert.equal(result.stages.support?.reason, 'no stage failed');
  });

  for (const stage of STAGES) {
    test(`with ${stage} switched off`, async () => {
      const s = stubs();
      const result = await run(`switches-${stage}-off`, allOn({ [stage]: false }), s);
      // support is not a step of its own: switched off, it is reported as skipped like the others.
      assert.equal(result.stages[stage]?.status, 'skipped', JSON.stringify(result.stages));
      assert.equal(result.stages[stage]?.reason, 'switched off');
      assert.notEqual(result.status, 'failed', JSON.stringify(result.stages));
      for (const name of OWN[stage]) assert.deepEqual(s.inputs(name), [], `${stage} is off but ${name} was called`);
      if (stage === 'map') {
        assert.equal(result.stages.select?.status, 'skipped');
        assert.deepEqual(s.inputs('selectUrls'), []);
      }
      if (stage === 'crawl') {
        // Nothing was crawled: the batch covers the whole selection.
        assert.deepEqual(s.inputs('diffUrls').map((i) => [i.fromList, i.coveredByJobs]), [['selected', []]]);
        assert.equal(result.stages.batch?.urls, result.stages.select?.urls, 'batch covers the whole selection');
        assert.equal(s.inputs('startBatchScrape')[0]?.urlsFrom?.limit, result.stages.select?.urls);
        assert.equal(result.stages.batch?.documents, result.stages.select?.urls);
      }
    });
  }

  test('support switched off: a failed stage is not taken to support ask', async () => {
    // select keeps nothing: the stage fails, and with support on it would be asked about.
    const s = stubs({ selectUrls: (i) => ({ count: 0, ref: { runId: i.runId, list: i.toList }, sample: [], pathPatterns: [] }), askSupport: () => { throw new Error('support ask must not be called'); } });
    const result = await run('switches-support-off-failed', allOn({ support: false }), s);
    assert.equal(result.stages.select?.status, 'failed', JSON.stringify(result.stages));
    assert.equal(result.stages.support?.status, 'skipped');
    assert.equal(result.stages.support?.reason, 'switched off');
    assert.deepEqual(s.inputs('askSupport'), []);
  });
});
