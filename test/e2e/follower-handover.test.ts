// Continue-as-new while the job's follower is finishing: the follower that stored the job's
// last page as the workflow stopped it keeps its result, and the job is not followed again.
// By construction: the dev server suggests continue-as-new after a few events, the job's status
// reads say "scraping" for as long as the follower runs, and the follower runs until the
// workflow stops it and then answers that it stored everything.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Context } from '@temporalio/activity';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities/index.js';
import type { FollowJobInput, FollowJobResult, JobSummary } from '../../src/activities/types.js';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { createWebDataWorker } from '../../src/worker.js';
import { refOf } from '../../packages/storage/src/index.js';
import { startStack } from '../helpers/stack.js';
import { pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';

let stack: DevStack;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
const follows: FollowJobInput[] = [];
let summaries = 0;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('follower-handover', () => {
  before(async () => {
    // A run is told to continue as new once its history holds 25 events (a few status polls).
    stack = await startStack({ worker: false, temporalArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=25'] });
    connection = await NativeConnection.connect({ address: stack.temporal.address });
    const real = createActivities({ client: stack.api, store: stack.store });
    worker = await createWebDataWorker({
      connection,
      namespace: stack.temporal.namespace,
      taskQueue: stack.taskQueue,
      client: stack.api,
      store: stack.store,
      workflowBundlePath: await pipelineWorkflowBundle(),
      overrides: {
        activities: {
          ...real,
          async getJobSummary(input: { kind: 'crawl' | 'batch'; jobId: string }): Promise<JobSummary> {
            summaries += 1;
            return { jobId: input.jobId, kind: input.kind, status: 'scraping', total: 3, completed: 1, creditsUsed: 1 };
          },
          async followJob(input: FollowJobInput): Promise<FollowJobResult> {
            follows.push(input);
            const ctx = Context.current();
            // Follows until the workflow cancels it (delivered with a heartbeat's answer), then
            // stores the job's last page instead of handing back: the job ended meanwhile.
            while (follows.length === 1 && !ctx.cancellationSignal.aborted) {
              ctx.heartbeat({ skip: 0, pages: 0, written: 0 });
              await new Promise((r) => setTimeout(r, 100));
            }
            const summary: JobSummary = { jobId: input.jobId, kind: input.kind, status: 'completed', total: 3, completed: 3, creditsUsed: 3 };
            return {
              kind: 'done',
              summary,
              collected: {
                jobId: input.jobId, kind: input.kind, status: 'completed', documents: 3, written: 3, failures: 0, creditsUsed: 3, pages: 1,
                ref: refOf(stack.store, input.runId, { jobId: input.jobId }),
              },
            };
          },
        },
      },
    });
    running = worker.run();
  });

  after(async () => {
    worker?.shutdown();
    await running?.catch(() => undefined);
    await connection?.close();
    await stack?.close();
  });

  test('a follower that ends while stopped for continue-as-new keeps its result: the job is followed once', { timeout: 300_000 }, async () => {
    const id = `handover-${Date.now()}`;
    const handle = await startPipeline(stack.temporal.client, {
      url: `${stack.service.siteUrl}/`,
      stages: { map: false, select: false, batch: false, interact: false },
      crawl: { limit: 3 },
      polling: { minIntervalMs: 200, maxIntervalMs: 200 },
    }, { taskQueue: stack.taskQueue, workflowId: id });
    const result = await handle.result();
    assert.ok(summaries > 0, 'the wait read no status');
    assert.equal(follows.length, 1, `the job was followed ${follows.length} times (cursors: ${JSON.stringify(follows.map((f) => f.cursor ?? null))})`);
    assert.equal(result.stages.crawl?.status, 'completed', JSON.stringify(result.stages.crawl));
    assert.equal(result.stages.crawl?.documents, 3);
    assert.equal(result.credits.spent, 3);
  });
});
