import { after, before, test } from 'node:test';
import { startWorkflowTests, type WorkflowTests } from '../helpers/time-skipping.js';
import { crawlInput, siteStubs, summary } from './pipeline-stubs.js';

let wt: WorkflowTests;
before(async () => { wt = await startWorkflowTests(); });
after(async () => { await wt?.teardown(); });

test('debug', { timeout: 90_000 }, async () => {
  let release!: () => void; const rel = new Promise<void>((r) => { release = r; });
  let open!: () => void; const following = new Promise<void>((r) => { open = r; });
  const stubs = siteStubs({
    getJobSummary: (input) => summary('crawl', input.jobId, 'scraping'),
    followJob: async () => { open(); await rel; return { kind: 'slice', cursor: { skip: 0, pages: 0, written: 0 } }; },
  });
  await wt.with(stubs, async () => {
    const handle = await wt.env.client.workflow.start('webDataPipeline', { taskQueue: wt.taskQueue, workflowId: 'dbg', args: [crawlInput()] });
    await following; console.log('reached');
    await handle.cancel(); console.log('cancelled');
    const r = await Promise.race([handle.result().then(() => 'ok', (e: unknown) => String(e) + ' / ' + String((e as {cause?: unknown}).cause)), new Promise((r) => setTimeout(() => r('timeout'), 15000))]);
    console.log('result', r);
    const hist = await handle.fetchHistory();
    for (const e of hist.events ?? []) console.log(e.eventType, e.activityTaskScheduledEventAttributes?.activityType?.name ?? '', JSON.stringify(e.workflowTaskFailedEventAttributes?.failure?.message ?? ''));
    console.log(stubs.names());
    release();
  });
});
