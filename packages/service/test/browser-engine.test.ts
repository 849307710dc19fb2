// The browser scrape engine and the routing engine against real Chromium: actions, waitFor,
// screenshots, mobile and location emulation, JavaScript-rendered pages, pool and relaunch.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ScrapeEngine, ScrapeRequestContext } from '../src/core/scrape.js';
import { isAdHost } from '../src/browser/adblock.js';
import { findChromium } from '../src/browser/chromium.js';
import { createBrowserScrapeEngine, type BrowserScrapeEngine } from '../src/browser/engine.js';
import { asksForJavascript, browserReason, createRoutingScrapeEngine } from '../src/browser/routing-engine.js';
import { DEMO_JS_TEXT, startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { startFixtureSite, team } from './browser-harness.js';

const chromiumPath = findChromium();
const ctx = (): ScrapeRequestContext => ({ scrapeId: randomUUID(), team: team('t1') });

function pngSize(dataUrl: string): { width: number; height: number } {
  const buf = Buffer.from(dataUrl.split(',')[1], 'base64');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('routing rules', () => {
  it('needs the browser only for browser features', () => {
    assert.equal(browserReason({ url: 'x', formats: ['markdown'] }), undefined);
    assert.equal(browserReason({ blockAds: true }), undefined);
    assert.equal(browserReason({ waitFor: 0 }), undefined);
    assert.equal(browserReason({ waitFor: 10 }), 'waitFor');
    assert.equal(browserReason({ actions: [{ type: 'wait', milliseconds: 1 }] }), 'actions');
    assert.equal(browserReason({ formats: [{ type: 'screenshot', fullPage: true }] }), 'screenshot');
    assert.equal(browserReason({ formats: ['screenshot@fullPage'] }), 'screenshot');
    assert.equal(browserReason({ mobile: true }), 'mobile');
    assert.equal(browserReason({ location: { country: 'DE' } }), 'location');
    assert.ok(asksForJavascript('<head><meta name="webdata:render" content="javascript"></head>'));
    assert.ok(!asksForJavascript('<head><meta name="description" content="javascript"></head>'));
    assert.ok(isAdHost('securepubads.g.doubleclick.net'));
    assert.ok(isAdHost('www.google-analytics.com'));
    assert.ok(!isAdHost('127.0.0.1'));
    assert.ok(!isAdHost('example.com'));
  });
});

describe('browser scrape engine', { skip: chromiumPath ? false : 'no Chromium installed', timeout: 400_000 }, () => {
  let engine: BrowserScrapeEngine;
  let demo: DemoSite;
  let site: { url: string; close(): Promise<void> };

  before(async () => {
    engine = createBrowserScrapeEngine({ maxContexts: 1 });
    demo = await startDemoSite();
    site = await startFixtureSite();
  });
  after(async () => {
    await engine?.close();
    await demo?.close();
    await site?.close();
  });

  it('runs actions and returns their results in document.actions', async () => {
    const out = await engine.scrape(`${demo.url}/shop/catalog`, {
      formats: ['markdown', 'links'],
      actions: [
        { type: 'click', selector: '#load-more' },
        { type: 'wait', selector: '#catalog-items li:nth-child(11)' },
        { type: 'executeJavascript', script: "document.querySelectorAll('#catalog-items li').length" },
        { type: 'executeJavascript', script: 'return { title: document.title }' },
        { type: 'scrape' },
        { type: 'screenshot', quality: 60 },
        { type: 'scroll', direction: 'down' },
        { type: 'pdf' },
      ],
    }, ctx());
    assert.equal(out.engine, 'browser');
    const actions = out.document.actions as { screenshots: string[]; scrapes: Array<{ html: string }>; javascriptReturns: Array<{ type: string; value: unknown }>; pdfs: string[] };
    const count = actions.javascriptReturns[0];
    assert.equal(count.type, 'number');
    assert.ok((count.value as number) > 10);
    assert.equal(actions.javascriptReturns[1].type, 'object');
    assert.equal(actions.scrapes.length, 1);
    assert.ok(actions.scrapes[0].html.includes('catalog-items'));
    assert.match(actions.screenshots[0], /^data:image\/jpeg;base64,/);
    assert.match(actions.pdfs[0], /^data:application\/pdf;base64,JVBER/);
    // The rendered page (with the loaded items) is what the markdown describes.
    const items = (out.document.markdown ?? '').split('\n').filter((l) => l.startsWith('- ')).length;
    assert.ok(items > 10, out.document.markdown);
    assert.ok((out.document.links ?? []).length > 0);
    await assert.rejects(engine.scrape(`${demo.url}/shop/catalog`, { actions: [{ type: 'click', selector: '#missing', }], timeout: 3000 }, ctx()), /Action 0 \(click\) failed/);
  });

  it('honours waitFor and screenshot formats', async () => {
    const without = await engine.scrape(`${site.url}/late`, { formats: ['markdown'] }, ctx());
    assert.ok(!(without.document.markdown ?? '').includes('late content'));
    const withWait = await engine.scrape(`${site.url}/late`, { formats: ['markdown', { type: 'screenshot', viewport: { width: 400, height: 300 } }], waitFor: 3500 }, ctx());
    assert.ok((withWait.document.markdown ?? '').includes('late content'));
    assert.deepEqual(pngSize(withWait.document.screenshot!), { width: 400, height: 300 });
    const full = await engine.scrape(`${site.url}/blocks`, { formats: [{ type: 'screenshot', fullPage: true }] }, ctx());
    assert.deepEqual(pngSize(full.document.screenshot!), { width: 1280, height: 800 });
  });

  it('emulates mobile and location', async () => {
    const mobile = await engine.scrape(`${site.url}/ua`, { formats: ['html'], mobile: true }, ctx());
    assert.match(mobile.document.html ?? '', /iPhone[^|]*\|390\|/);
    const de = await engine.scrape(`${site.url}/ua`, { formats: ['html'], location: { country: 'DE', languages: ['de-DE'] } }, ctx());
    assert.match(de.document.html ?? '', /\|de-DE\|Europe\/Berlin/);
  });

  it('re-renders JavaScript pages through the routing engine; plain pages stay on HTTP', async () => {
    // A stand-in HTTP engine (static fetch) to observe the routing.
    const http: ScrapeEngine = {
      async scrape(url, options, c) {
        const res = await fetch(url);
        const html = await res.text();
        const formats = (options.formats as string[]) ?? ['markdown'];
        return {
          document: { markdown: 'static', ...(formats.includes('rawHtml') ? { rawHtml: html } : {}), metadata: { sourceURL: url, url, statusCode: res.status, scrapeId: c.scrapeId } },
          discoveredLinks: [], engine: 'http', options,
        };
      },
      close: async () => undefined,
    };
    const routing = createRoutingScrapeEngine({ http, browser: engine });
    const plain = await routing.scrape(`${demo.url}/`, { formats: ['markdown'] }, ctx());
    assert.equal(plain.engine, 'http');
    assert.equal(plain.document.rawHtml, undefined, 'rawHtml only when asked for');
    const js = await routing.scrape(`${demo.url}/app/dashboard`, { formats: ['markdown'] }, ctx());
    assert.equal(js.engine, 'browser');
    assert.ok((js.document.markdown ?? '').includes(DEMO_JS_TEXT), js.document.markdown);
    assert.equal(js.document.metadata.title, 'Dashboard');
    const shot = await routing.scrape(`${demo.url}/`, { formats: ['screenshot'] }, ctx());
    assert.equal(shot.engine, 'browser');
  });

  it('bounds contexts and relaunches a crashed browser', async () => {
    const urls = [`${site.url}/`, `${site.url}/blocks`, `${site.url}/ua`];
    const results = await Promise.all(urls.map((u) => engine.scrape(u, { formats: ['markdown'], waitFor: 50 }, ctx())));
    assert.equal(results.length, 3);
    assert.equal(engine.busy(), 0);
    await engine.dropBrowser();
    const again = await engine.scrape(`${site.url}/`, { formats: ['markdown'] }, ctx());
    assert.match(again.document.markdown ?? '', /Fixture home/);
  });
});
