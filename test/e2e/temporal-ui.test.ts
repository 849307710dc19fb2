// Opens the dev server's Temporal UI in headless Chromium on a finished pipeline and reads
// its summary, current details and search attributes from the page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { hostOf } from '../../src/workflows/runtime.js';
import { launchChromium } from '../helpers/chromium.js';
import { runToEnd, startStack } from '../helpers/stack.js';

let stack: DevStack;
let browser: Browser;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('temporal-ui', () => {
  before(async () => {
    stack = await startStack({ ui: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  test('the Temporal UI shows the run summary and its search attributes', async () => {
    const site = stack.service.siteUrl as string;
    const { id, result } = await runToEnd(stack, { url: `${site}/docs`, stages: { map: false, select: false, batch: false, interact: false }, crawl: { limit: 3 } });
    assert.equal(result.status, 'completed');
    const page = await browser.newPage();
    const ui = stack.temporal.uiUrl as string;

    await page.goto(`${ui}/namespaces/${stack.temporal.namespace}/workflows/${encodeURIComponent(id)}`);
    const summary = `crawl ${hostOf(site)}`;
    await page.getByText(summary, { exact: false }).first().waitFor({ timeout: 30_000 });

    // The list view filtered by our typed search attributes finds exactly this run.
    const query = `WebdataTargetHost="${hostOf(site)}" AND WebdataOutcome="completed" AND WebdataPages=3`;
    await page.goto(`${ui}/namespaces/${stack.temporal.namespace}/workflows?query=${encodeURIComponent(query)}`);
    await page.getByText(id).first().waitFor({ timeout: 30_000 });
    await page.close();
  });
});
