// The json and summary scrape formats on the local service: answered per page by a real
// OpenAI-compatible endpoint on loopback (deterministic, derived from the page), for scrape,
// crawl and batch scrape; without a model, a clear 503 AI_NOT_CONFIGURED before any job starts.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { WebDataApiError, WebDataClient, type JobStatusResponse } from '../../client/src/index.js';
import { startLocalService, type LocalService } from '../src/app.js';
import { silentLogger } from '../src/http/logger.js';
import { startModelServer, useModel, type ModelServer } from '../../../test/helpers/openai-model.js';
import { realScrapeEngine } from './jobs-helpers.js';
import { team } from './platform-helpers.js';

const PAGES: Record<string, string> = {
  '/': '<html><head><title>Home</title></head><body><h1>Welcome home</h1><p>See <a href="/plans">plans</a>.</p></body></html>',
  '/plans': '<html><head><title>Plans</title></head><body><h1>Our plans</h1><p>Plan A costs ten dollars.</p></body></html>',
};
const SCHEMA = { type: 'object', properties: { title: { type: 'string' }, url: { type: 'string' } } };

let site: Server;
let siteUrl = '';
let model: ModelServer;
let failing: ModelServer;
let svc: LocalService;
let client: WebDataClient;
let restoreEnv: () => void = () => {};

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('model formats (json, summary)', () => {
  before(async () => {
    site = createServer((req, res) => {
      const page = PAGES[req.url ?? ''];
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' });
      res.end(page ?? '<html><body><h1>Not found</h1></body></html>');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    model = await startModelServer();
    failing = await startModelServer(() => 'no json here');
    svc = await startLocalService({ teams: [team('f', { credits: 1000 })], site: false, logger: silentLogger, scrapeEngine: realScrapeEngine() });
    // The scrapes name this file's site on 127.0.0.1: allowed by its host:port.
    client = new WebDataClient({ apiKey: 'key-f', baseUrl: svc.url, timeoutMs: 10_000, allowPrivateAddresses: [new URL(siteUrl).host] });
  });
  after(async () => {
    restoreEnv();
    await client.close();
    await svc.close();
    await model.close();
    await failing.close();
    site.closeAllConnections();
    await new Promise((r) => site.close(r));
  });
  beforeEach(() => {
    restoreEnv();
    restoreEnv = useModel(model.url);
    model.chats.length = 0;
  });

  async function settle(read: () => Promise<JobStatusResponse>): Promise<JobStatusResponse> {
    for (let i = 0; i < 1000; i++) {
      const r = await read();
      if (r.status !== 'scraping') return r;
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.fail('job did not finish');
  }

  async function refused(p: Promise<unknown>): Promise<WebDataApiError> {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof WebDataApiError, String(err));
      return err;
    }
    assert.fail('expected a rejection');
  }

  describe('json and summary formats', () => {
    test('scrape: json follows the schema, summary is text, markdown only when asked', async () => {
      const res = await client.scrape({ url: `${siteUrl}/plans`, formats: [{ type: 'json', schema: SCHEMA }, 'summary'] });
      assert.deepEqual(res.data.json, { title: 'Our plans', url: `${siteUrl}/plans` });
      assert.equal(res.data.summary, `Summary of ${siteUrl}/plans: Our plans`);
      assert.equal(res.data.markdown, undefined, 'markdown was not asked for');
      assert.equal(model.chats.length, 2, 'one model call per format');
      const jsonChat = model.chats.find((c) => !/summari/i.test(c.messages[0]!.content))!;
      assert.match(jsonChat.messages[0]!.content, /"properties"/, 'the schema is given to the model');
      assert.match(jsonChat.messages[1]!.content, /Plan A costs ten dollars/, 'the page is given to the model');
      assert.equal(jsonChat.model, 'deterministic');
    });

    test('scrape: a json prompt without a schema reaches the model', async () => {
      const res = await client.scrape({ url: `${siteUrl}/plans`, formats: ['markdown', { type: 'json', prompt: 'The page title' }] });
      assert.equal((res.data.json as { title?: string }).title, 'Our plans');
      assert.match(res.data.markdown ?? '', /Our plans/);
      assert.match(model.chats[0]!.messages[0]!.content, /What to extract: The page title/);
    });

    test('crawl: every page carries its own json and summary', async () => {
      const { id } = await client.startCrawl({ url: `${siteUrl}/`, limit: 5, scrapeOptions: { formats: ['markdown', { type: 'json', schema: SCHEMA }, 'summary'] } });
      const res = await settle(() => client.getCrawlStatus(id));
      assert.equal(res.status, 'completed');
      const byUrl = new Map(res.data.map((d) => [d.metadata?.sourceURL, d]));
      assert.deepEqual([...byUrl.keys()].sort(), [`${siteUrl}/`, `${siteUrl}/plans`]);
      assert.deepEqual(byUrl.get(`${siteUrl}/`)?.json, { title: 'Welcome home', url: `${siteUrl}/` });
      assert.equal(byUrl.get(`${siteUrl}/plans`)?.summary, `Summary of ${siteUrl}/plans: Our plans`);
      assert.match(byUrl.get(`${siteUrl}/plans`)?.markdown ?? '', /ten dollars/);
    });

    test('batch scrape: summary per page; an error page gets none and costs no model call', async () => {
      const { id } = await client.startBatchScrape({ urls: [`${siteUrl}/plans`, `${siteUrl}/missing`], formats: ['summary'] });
      const res = await settle(() => client.getBatchScrapeStatus(id));
      assert.equal(res.status, 'completed');
      const byUrl = new Map(res.data.map((d) => [d.metadata?.sourceURL, d]));
      assert.equal(byUrl.get(`${siteUrl}/plans`)?.summary, `Summary of ${siteUrl}/plans: Our plans`);
      assert.equal(byUrl.get(`${siteUrl}/missing`)?.metadata?.statusCode, 404);
      assert.equal(byUrl.get(`${siteUrl}/missing`)?.summary, undefined);
      assert.equal(model.chats.length, 1);
    });

    test('a model answering no JSON: 502 AI_MODEL_FAILED naming the format', async () => {
      restoreEnv();
      restoreEnv = useModel(failing.url);
      const err = await refused(client.scrape({ url: `${siteUrl}/plans`, formats: [{ type: 'json', prompt: 'x' }] }));
      assert.equal(err.status, 502);
      assert.equal(err.code, 'AI_MODEL_FAILED');
      assert.match(err.message, /"json" format failed: model answered no valid JSON object/);
    });

    describe('without a model', () => {
      beforeEach(() => {
        restoreEnv();
        restoreEnv = useModel(undefined);
      });

      test('scrape: 503 AI_NOT_CONFIGURED naming the format and the setting', async () => {
        const err = await refused(client.scrape({ url: `${siteUrl}/plans`, formats: ['summary'] }));
        assert.equal(err.status, 503);
        assert.equal(err.code, 'AI_NOT_CONFIGURED');
        assert.match(err.message, /"summary" format needs an AI model: set LLM_BASE_URL/);
      });

      test('crawl and batch scrape: refused before a job starts', async () => {
        const before = (await client.listActiveCrawls()).crawls.length;
        const crawl = await refused(client.startCrawl({ url: `${siteUrl}/`, scrapeOptions: { formats: [{ type: 'json', schema: SCHEMA }] } }));
        assert.equal(crawl.code, 'AI_NOT_CONFIGURED');
        assert.match(crawl.message, /"json" format needs an AI model/);
        const batch = await refused(client.startBatchScrape({ urls: [`${siteUrl}/plans`], formats: ['markdown', 'summary'] }));
        assert.equal(batch.code, 'AI_NOT_CONFIGURED');
        assert.equal((await client.listActiveCrawls()).crawls.length, before);
      });

      test('formats without json or summary do not need a model', async () => {
        const res = await client.scrape({ url: `${siteUrl}/plans`, formats: ['markdown'] });
        assert.match(res.data.markdown ?? '', /Our plans/);
      });
    });
  });
});
