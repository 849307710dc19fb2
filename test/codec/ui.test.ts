// The Temporal UI of an encrypted dev stack reads runs through the stack's codec server: the
// dev server's UI is started with --ui-codec-endpoint, its pages call the codec server from the
// browser (CORS for the UI's own origin) and show the run's input decoded. Headless Chromium.
// WEBDATA_TEST_SCREENSHOT=<file.png> keeps a screenshot of the run's page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { parsePayloadKeys, type CodecServer } from '../../src/codec/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { runToEnd, startStack } from '../helpers/stack.js';
import { encryptedPipelineWorkflowBundle } from '../helpers/workflow-bundle.js';

// A fixed test key (never used outside the tests).
const KEYS = parsePayloadKeys(`ui-key=${Buffer.alloc(32, 0x3e).toString('base64')}`);

let stack: DevStack;
let browser: Browser;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('codec-ui', () => {
  before(async () => {
    stack = await startStack({ ui: true, payloadKeys: KEYS, workflowBundlePath: await encryptedPipelineWorkflowBundle() });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  test('the UI shows an encrypted run decoded, through the codec server', async () => {
    const site = stack.service.siteUrl as string;
    const marker = 'zz-ui-decoded-include';
    const { id, result } = await runToEnd(stack, { url: `${site}/docs`, stages: { map: false, select: false, batch: false, interact: false }, crawl: { limit: 2, includePaths: ['^/docs', marker] } });
    assert.equal(result.status, 'completed');
    const codec = stack.codec as CodecServer;
    const page = await browser.newPage({ viewport: { width: 1400, height: 1400 } });
    const calls: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(codec.url)) calls.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    await page.goto(`${stack.temporal.uiUrl}/namespaces/${stack.temporal.namespace}/workflows/${encodeURIComponent(id)}`);
    // The input, decoded in the browser: the crawl's include pattern is there only after /decode.
    await page.getByText(marker, { exact: false }).first().waitFor({ timeout: 60_000 });
    assert.ok(calls.includes('POST /decode'), calls.join(', '));
    if (process.env.WEBDATA_TEST_SCREENSHOT) await page.screenshot({ path: process.env.WEBDATA_TEST_SCREENSHOT, fullPage: true });
    await page.close();
  });
});
