// The fleet governor on the full local stack (real service, Temporal, worker): a team of
// concurrency 3, held whole by a lease the test takes itself, a large governed batch of one tenant
// and a small one of another both in the governor's line. When the test gives its lease back the
// two are granted together, fairly (2 and 1: the earlier arrival gets the remainder), so the small
// tenant's job runs beside the large batch's first chunk instead of after the whole batch; every
// share comes back at the end. The team's concurrency comes from GET /v2/team/queue-status.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultLocalTeam } from '../../packages/service/src/config/defaults.js';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { acquireShare, governorStatus, releaseShare, type GovernorTarget } from '../../src/coordination/team-governor.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { governorWorkflowId } from '../../src/shared/team-governor-messages.js';
import { recordHistory } from '../helpers/histories.js';
import { localActivities } from '../helpers/local-activities.js';
import { startStack } from '../helpers/stack.js';

const CONCURRENCY = 3;
const CHUNK_PAGES = 10;
let stack: DevStack;
// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('governor-stack', () => {
  before(async () => {
    stack = await startStack({ teams: [{ ...defaultLocalTeam(), concurrency: CONCURRENCY }] });
  });
  after(async () => {
    await stack?.close();
  });

  const input = (tenant: string, pages: number): PipelineInput => ({
    url: `${stack.service.siteUrl as string}/`,
    mode: 'batch',
    tenant,
    select: { limit: pages },
    // overcommit 1: shares add up to the team's 3, so the line and its split are what is seen.
    governor: { chunkPages: CHUNK_PAGES, overcommit: 1 },
    stages: { interact: false, support: false },
  });

  async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 240_000; // the machine is busy
    while (Date.now() < deadline) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.fail(`timed out waiting for ${what}`);
  }

  /**
   * The batch starts a run made, in order: [offset, limit, maxConcurrency]. A start is a local
   * activity, whose marker keeps no input: read from its summary, "batch scrape chunk i/n: N URLs,
   * S at once", the chunk's index (offset = index × the chunk size), size and share.
   */
  async function batchStarts(workflowId: string): Promise<Array<[number, number, number]>> {
    const history = await stack.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    return localActivities(history.events, 'startBatchScrape').map(({ summary }) => {
      const m = /^batch scrape chunk (\d+)\/\d+: (\d+) URLs, (\d+) at once$/.exec(summary ?? '');
      assert.ok(m, `a batch start's summary: ${summary}`);
      return [(Number(m[1]) - 1) * CHUNK_PAGES, Number(m[2]), Number(m[3])];
    });
  }

  test('two tenants share a team of 3: granted together 2 and 1, the small run beside the large one; all shares come back', async () => {
    const team = stack.api.teamId;
    const holder: GovernorTarget = { client: stack.temporal.client, taskQueue: stack.taskQueue, team, concurrency: CONCURRENCY };
    const held = await acquireShare(holder, { key: 'test/holder', tenant: 'holder', want: CONCURRENCY });
    assert.equal(held.granted && held.share, CONCURRENCY);

    const stamp = Date.now();
    const bigId = `gov-big-${stamp}`;
    const smallId = `gov-small-${stamp}`;
    const big = await startPipeline(stack.temporal.client, input('big', 40), { taskQueue: stack.taskQueue, workflowId: bigId });
    await until('the large run in line', async () => (await governorStatus(stack.temporal.client, team))?.tenants.some((t) => t.tenant === 'big' && t.waiting === 1) === true);
    const small = await startPipeline(stack.temporal.client, input('small', 5), { taskQueue: stack.taskQueue, workflowId: smallId });
    await until('the small run in line', async () => (await governorStatus(stack.temporal.client, team))?.tenants.some((t) => t.tenant === 'small' && t.waiting === 1) === true);
    await releaseShare(holder, 'test/holder');

    const [bigResult, smallResult] = await Promise.all([big.result(), small.result()]);
    assert.equal(bigResult.status, 'completed', JSON.stringify(bigResult.stages));
    assert.equal(smallResult.status, 'completed', JSON.stringify(smallResult.stages));
    assert.equal(bigResult.stages.batch?.documents, 40);
    assert.equal(smallResult.stages.batch?.documents, 5);

    const bigStarts = await batchStarts(bigId);
    const smallStarts = await batchStarts(smallId);
    // Granted in one pass: the large run's first chunk its fair 2, the small run its 1.
    assert.deepEqual(bigStarts[0], [0, 10, 2]);
    assert.deepEqual(smallStarts, [[0, 5, 1]]);
    assert.deepEqual(bigStarts.map(([offset, limit]) => [offset, limit]), [[0, 10], [10, 10], [20, 10], [30, 10]]);
    assert.ok(bigStarts.every(([, , share]) => share >= 1 && share <= CONCURRENCY));

    const status = await governorStatus(stack.temporal.client, team);
    assert.equal(status?.inUse, 0);
    assert.deepEqual(status?.tenants, []);
    // The runs asked with GET /v2/team/queue-status's maxConcurrency: 2 + 1 = the team's 3.
    assert.equal(status?.concurrency, CONCURRENCY);
    // Replayed by test/replay (RECORD_HISTORIES=1 records them): the governed, chunked batch that
    // waited for the governor's notice, and the governor that sent it. (team-governor.binpb is a
    // run from before notices, kept for the patch.)
    await recordHistory(stack.temporal.client, bigId, 'team-governor-notices');
    await recordHistory(stack.temporal.client, governorWorkflowId(team), 'team-governor-workflow');
  });
});
