// The hosted service's SDK (@mendable/firecrawl-js) against the local service: browser
// sessions (create, list, execute, delete) and interact on a scrape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { findChromium } from '../src/browser/chromium.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { findAgentBrowser } from '../src/interact/agent-browser.js';
import { startHarness, team, type Harness } from './browser-harness.js';

const chromiumPath = findChromium();

describe('SDK: browser sessions and interact', { skip: chromiumPath ? false : 'no Chromium installed', timeout: 300_000 }, () => {
  let h: Harness;
  let site: DemoSite;
  let sdk: Firecrawl;

  before(async () => {
    site = await startDemoSite();
    h = await startHarness([team('t1')]);
    sdk = new Firecrawl({ apiKey: 'key-t1', apiUrl: h.baseUrl });
  });
  after(async () => {
    await h?.close();
    await site?.close();
  });

  it('creates, lists, executes in and deletes a browser session', async () => {
    const created = await sdk.browser({ ttl: 120, activityTtl: 60 });
    assert.equal(created.success, true);
    assert.ok(created.id && created.cdpUrl && created.liveViewUrl);
    const listed = await sdk.listBrowsers({ status: 'active' });
    assert.ok(listed.sessions?.some((s) => s.id === created.id));

    const node = await sdk.browserExecute(created.id, { language: 'node', code: `await page.goto('${site.url}/shop/catalog'); await page.title()` });
    assert.equal(node.success, true, JSON.stringify(node));
    assert.equal(node.result, 'Catalog');
    assert.equal(node.cdpUrl, created.cdpUrl);
    if (findAgentBrowser() || process.env.CI) {
      const bash = await sdk.browserExecute(created.id, { code: 'agent-browser get title' });
      assert.equal(bash.success, true, JSON.stringify(bash));
      assert.equal(bash.stdout?.trim(), 'Catalog');
    }
    const deleted = await sdk.deleteBrowser(created.id);
    assert.equal(deleted.success, true);
    assert.equal(deleted.creditsBilled, 2);
    await assert.rejects(sdk.browserExecute(created.id, { language: 'node', code: '1' }), /destroyed/);
  });

  it('interacts with a scrape and stops the interaction', async () => {
    const doc = await sdk.scrape(`${site.url}/shop/catalog`, { formats: ['markdown'] });
    const jobId = doc.metadata?.scrapeId;
    assert.ok(jobId);
    const res = await sdk.interact(jobId, { code: "await page.click('#load-more'); await page.waitForFunction(() => document.querySelectorAll('#catalog-items li').length > 10); await page.locator('#catalog-items li').count()" });
    assert.equal(res.success, true, JSON.stringify(res));
    assert.ok(Number(res.result) > 10);
    const stopped = await sdk.stopInteraction(jobId);
    assert.equal(stopped.success, true);
    assert.equal(typeof stopped.sessionDurationMs, 'number');
  });
});
