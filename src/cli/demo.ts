// `npm run demo`: the whole pipeline on the embedded stack, with every stage on and one
// deliberate mistake (a crawl include pattern that excludes the start page) that support
// ask diagnoses and repairs. Prints live progress, the summary and the Temporal UI link.
import { startDevStack, type DevStack } from './dev-stack.js';
import { runPipeline } from './commands/run.js';
import { changesCommand } from './commands/changes.js';
import { deleteSchedule, schedulePipeline, triggerSchedule } from '../client/schedules.js';
import type { PipelineInput } from '../workflows/input.js';
import type { PipelineResult } from '../workflows/state.js';

export function demoInput(siteUrl: string, webhookUrl: string): PipelineInput {
  return {
    url: `${siteUrl}/`,
    select: { include: ['^/docs', '^/shop/catalog'], limit: 40 },
    // The mistake: "^/documentation" matches no page of the site, not even the start URL,
    // so the crawl returns nothing; support ask proposes includePaths that work.
    crawl: { includePaths: ['^/documentation'], limit: 30, maxDiscoveryDepth: 3 },
    interact: {
      match: '/shop/catalog',
      language: 'node',
      // Clicks "Load more" and returns how many catalog items the page shows afterwards.
      code: "await page.click('#load-more'); await page.waitForFunction(() => document.querySelectorAll('#catalog-items li').length > 10, null, { timeout: 10000 }); await page.$$eval('#catalog-items li', (items) => items.length)",
      maxPages: 1,
      timeout: 60,
    },
    budget: { credits: 400 },
    webhookUrl,
  };
}

async function main(): Promise<number> {
  const started = Date.now();
  // The demo fails one crawl on purpose: keep the worker's retry warnings out of the output.
  process.env.TEMPORAL_LOG_LEVEL ??= 'ERROR';
  console.log('starting the embedded stack (Temporal dev server + UI, local service, demo site, worker, webhooks)...');
  // A prebuilt workflow bundle, as `webdata worker` takes it (WEBDATA_WORKFLOW_BUNDLE): no webpack at start.
  const stack = await startDevStack({ ui: true, log: (line) => console.log(line), workflowBundlePath: process.env.WEBDATA_WORKFLOW_BUNDLE || undefined });
  try {
    console.log(`Temporal UI ${stack.temporal.uiUrl} · service ${stack.service.url} · demo site ${stack.service.siteUrl}`);
    const code = await runPipeline(stack.temporal.client, demoInput(stack.service.siteUrl as string, stack.webhook.url), {
      taskQueue: stack.taskQueue,
      workflowId: `webdata-demo-${Date.now()}`,
      uiUrl: stack.temporal.uiUrl,
      namespace: stack.temporal.namespace,
    });
    if (code === 0) await watchForChanges(stack);
    console.log(`demo finished in ${((Date.now() - started) / 1000).toFixed(1)} s; stopping the stack (the UI link works while \`webdata dev\` runs)`);
    return code;
  } finally {
    await stack.close();
  }
}

/**
 * A schedule over the demo site, run twice; the site changes between the runs (3 pages rewritten,
 * 1 removed, 2 added) and the second run reports exactly those pages.
 */
async function watchForChanges(stack: DevStack): Promise<void> {
  const scheduleId = 'demo-watch';
  const site = stack.service.siteUrl as string;
  console.log(`\nwatching the demo site for changes: schedule ${scheduleId} (paused; each run started with triggerSchedule)`);
  await schedulePipeline(stack.temporal.client, { url: `${site}/`, stages: { interact: false } }, {
    scheduleId, every: '24h', paused: true, taskQueue: stack.taskQueue,
  });
  try {
    const runOnce = async (label: string) => {
      const workflowId = await triggerSchedule(stack.temporal.client, scheduleId);
      const result = await stack.temporal.client.workflow.getHandle<() => Promise<PipelineResult>>(workflowId).result();
      const c = result.changes?.counts;
      console.log(`  ${label}: ${workflowId} ${result.status}, ${result.documents} pages · ${c?.new ?? 0} new · ${c?.changed ?? 0} changed · ${c?.unchanged ?? 0} unchanged · ${c?.removed ?? 0} removed`);
    };
    await runOnce('run 1');
    stack.service.handle.site?.setRevision(1);
    console.log('  the site changes (demo site revision 1)');
    await runOnce('run 2');
    console.log(`\n$ webdata changes ${scheduleId} --store ${stack.storeSpec}`);
    await changesCommand([scheduleId, '--store', stack.storeSpec]);
  } finally {
    await deleteSchedule(stack.temporal.client, scheduleId).catch(() => {});
  }
}

process.exitCode = await main();
