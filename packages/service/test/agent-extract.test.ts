// Agent and extract against a scripted OpenAI-compatible endpoint (answers chosen from the
// request, deterministic), and without a model (503). Also token usage and queue status.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { WebDataApiError, WebDataClient, type AgentStatusResponse, type ExtractResponse } from '../../client/src/index.js';
import { startLocalService, type LocalService } from '../src/app.js';
import { silentLogger } from '../src/http/logger.js';
import { realScrapeEngine } from './jobs-helpers.js';
import { team } from './platform-helpers.js';

interface Chat { messages: Array<{ role: string; content: string }> }

let site: Server;
let model: Server;
let siteUrl = '';
let modelUrl = '';
const chats: Chat[] = [];
/** What the scripted model answers to a chat; set per test. */
let script: (chat: Chat) => unknown = () => ({ data: {} });

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const body = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

let svc: LocalService;
let client: WebDataClient;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('agent and extract jobs', () => {
  before(async () => {
    site = createServer((req, res) => {
      const pages: Record<string, string> = {
        '/pricing': '<html><head><title>Pricing</title></head><body><h1>Pricing</h1><p>Plan A costs 10 dollars a month.</p></body></html>',
        '/team': '<html><head><title>Team</title></head><body><h1>Team</h1><p>The CEO is Ada Lovelace.</p></body></html>',
      };
      const page = pages[req.url ?? ''];
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' });
      res.end(page ?? '<html><body>Not found</body></html>');
    });
    siteUrl = await listen(site);
    model = createServer((req, res) => {
      void body(req).then((text) => {
        const chat = JSON.parse(text) as Chat;
        chats.push(chat);
        const content = JSON.stringify(script(chat));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage: { total_tokens: 1500 } }));
      });
    });
    modelUrl = `${await listen(model)}/v1`;
    svc = await startLocalService({ teams: [team('ai', { credits: 1000 })], site: false, logger: silentLogger, scrapeEngine: realScrapeEngine() });
    // This file's site, its receivers (started later) and a port nothing listens on are all on
    // 127.0.0.1: any port of it, allowed here by host, for this client only.
    client = new WebDataClient({ apiKey: 'key-ai', baseUrl: svc.url, timeoutMs: 10_000, allowPrivateAddresses: ['127.0.0.1'] });
  });
  after(async () => {
    delete process.env.LLM_BASE_URL;
    await client.close();
    await svc.close();
    site.closeAllConnections();
    model.closeAllConnections();
    await new Promise((r) => site.close(r));
    await new Promise((r) => model.close(r));
  });
  beforeEach(() => {
    process.env.LLM_BASE_URL = modelUrl;
    process.env.LLM_MODEL = 'scripted';
    chats.length = 0;
  });

  async function settle<T extends { status: string }>(read: () => Promise<T>): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const r = await read();
      if (r.status !== 'processing') return r;
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.fail('job did not finish');
  }

  async function refused(p: Promise<unknown>): Promise<WebDataApiError> {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof WebDataApiError);
      return err;
    }
    assert.fail('expected a rejection');
  }

  describe('extract', () => {
    test('scrapes the URLs, asks the model once with the pages, answers the data with sources', async () => {
      script = (chat) => (chat.messages[1]!.content.includes('Plan A costs 10 dollars') ? { data: { price: 10, currency: 'USD' } } : { data: null });
      const schema = { type: 'object', properties: { price: { type: 'number' } } };
      const { id } = await client.startExtract({ urls: [`${siteUrl}/pricing`], prompt: 'The price of plan A', schema, showSources: true });
      const res: ExtractResponse = await settle(() => client.getExtract(id));
      assert.equal(res.status, 'completed');
      assert.deepEqual(res.data, { price: 10, currency: 'USD' });
      assert.deepEqual(res.sources, [`${siteUrl}/pricing`]);
      assert.equal(chats.length, 1);
      assert.match(chats[0]!.messages[0]!.content, /"price"/, 'the schema is given to the model');
      assert.equal(res.creditsUsed, 1 + 2, 'one page, one model call of 1500 tokens (2 credits)');
    });

    test('no URL could be read: failed, with the reason', async () => {
      const { id } = await client.startExtract({ urls: ['http://127.0.0.1:1/x'], prompt: 'anything' });
      const res = await settle(() => client.getExtract(id));
      assert.equal(res.status, 'failed');
      assert.match(String(res.error), /None of the URLs could be scraped/);
      assert.equal(chats.length, 0);
    });

    test('without a model: 503 naming the settings', async () => {
      delete process.env.LLM_BASE_URL;
      const err = await refused(client.startExtract({ urls: [`${siteUrl}/pricing`], prompt: 'x' }));
      assert.equal(err.status, 503);
      assert.equal(err.code, 'AI_NOT_CONFIGURED');
      assert.match(err.message, /LLM_BASE_URL/);
    });

    test('unknown job: 404', async () => {
      assert.equal((await refused(client.getExtract('0b6f8a1e-4c1d-4a57-9d51-5b1f0a6c2e11'))).kind, 'not_found');
    });
  });

  describe('agent', () => {
    test('reads the given URL, asks for another page, then answers', async () => {
      script = (chat) => {
        const user = chat.messages[1]!.content;
        if (!user.includes('Ada Lovelace')) return { read: [`${siteUrl}/team`] };
        return { data: { ceo: 'Ada Lovelace', price: 10 } };
      };
      const { id } = await client.startAgent({ prompt: 'Who is the CEO and what does plan A cost?', urls: [`${siteUrl}/pricing`] });
      const res: AgentStatusResponse = await settle(() => client.getAgent(id));
      assert.equal(res.status, 'completed');
      assert.deepEqual(res.data, { ceo: 'Ada Lovelace', price: 10 });
      assert.equal(chats.length, 2);
      assert.equal(res.creditsUsed, 2 + 2 * 2, 'two pages and two model calls');
      assert.ok(res.expiresAt);
    });

    test('maxCredits: stops before passing the cap, and fails saying so', async () => {
      script = () => ({ read: [`${siteUrl}/team`] });
      const before = svc.ledger.remaining('ai');
      const { id } = await client.startAgent({ prompt: 'Keep reading', urls: [`${siteUrl}/pricing`], maxCredits: 3 });
      const res = await settle(() => client.getAgent(id));
      assert.equal(res.status, 'failed');
      assert.match(String(res.error), /maxCredits \(3\) reached/);
      assert.ok(res.creditsUsed <= 3, `spent ${res.creditsUsed}`);
      assert.equal(before - svc.ledger.remaining('ai'), res.creditsUsed, 'the ledger was charged exactly what the job reports');
    });

    test('strictConstrainToURLs: pages outside the list are not read', async () => {
      script = (chat) => (chats.length === 1 ? { read: [`${siteUrl}/team`] } : { data: { notes: chat.messages[1]!.content.includes('not read (strictConstrainToURLs)') } });
      const { id } = await client.startAgent({ prompt: 'x', urls: [`${siteUrl}/pricing`], strictConstrainToURLs: true });
      const res = await settle(() => client.getAgent(id));
      assert.equal(res.status, 'completed');
      assert.deepEqual(res.data, { notes: true });
    });

    test('cancel: a running job reads cancelled; a finished one is a 409', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => { release = r; });
      script = () => ({ data: 1 });
      const slowSite = createServer((_req, res) => { void gate.then(() => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<p>late</p>'); }); });
      const slowUrl = await listen(slowSite);
      try {
        const { id } = await client.startAgent({ prompt: 'x', urls: [`${slowUrl}/`] });
        assert.equal((await client.cancelAgent(id)).success, true);
        assert.equal((await client.getAgent(id)).status, 'cancelled');
        const done = await client.startAgent({ prompt: 'y' });
        release();
        await settle(() => client.getAgent(done.id));
        assert.equal((await refused(client.cancelAgent(done.id))).kind, 'conflict');
      } finally {
        release();
        slowSite.closeAllConnections();
        await new Promise((r) => slowSite.close(r));
      }
    });

    test('without a model: 503; invalid body: 400 before any job', async () => {
      delete process.env.LLM_BASE_URL;
      const err = await refused(client.startAgent({ prompt: 'x' }));
      assert.equal(err.status, 503);
      assert.equal(err.code, 'AI_NOT_CONFIGURED');
      const bad = await fetch(`${svc.url}/v2/agent`, { method: 'POST', headers: { authorization: 'Bearer key-ai', 'content-type': 'application/json' }, body: '{"prompt":""}' });
      assert.equal(bad.status, 400);
    });
  });

  describe('webhooks of agent and extract jobs', () => {
    interface Delivery { type: string; id: string; success: boolean; data: unknown; error?: string; metadata?: Record<string, unknown> }
    let receiver: Server;
    let receiverUrl = '';
    const deliveries: Delivery[] = [];
    before(async () => {
      receiver = createServer((req, res) => {
        void body(req).then((text) => {
          deliveries.push(JSON.parse(text) as Delivery);
          res.writeHead(200).end();
        });
      });
      receiverUrl = await listen(receiver);
    });
    after(async () => {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    });
    beforeEach(() => { deliveries.length = 0; });
    /** The deliveries of one job once every queued delivery was made (the dispatcher is idle). */
    const of = async (id: string) => {
      await svc.webhooks.idle();
      return deliveries.filter((d) => d.id === id).map((d) => [d.type, d.success]);
    };

    test('extract without a filter: started, then completed with the answer and the metadata', async () => {
      script = () => ({ data: { price: 10 } });
      const { id } = await client.startExtract({ urls: [`${siteUrl}/pricing`], prompt: 'price', webhook: { url: `${receiverUrl}/hook`, metadata: { workflowId: 'wf-x' } } });
      await settle(() => client.getExtract(id));
      assert.deepEqual(await of(id), [['extract.started', true], ['extract.completed', true]]);
      const completed = deliveries.find((d) => d.type === 'extract.completed')!;
      assert.deepEqual(completed.data, [{ price: 10 }]);
      assert.deepEqual(completed.metadata, { workflowId: 'wf-x' });
    });

    test('agent with events [completed, failed, cancelled]: only its end is sent (a failure with its error)', async () => {
      const events = ['completed', 'failed', 'cancelled'] as const;
      script = () => ({ data: { ok: true } });
      const ok = await client.startAgent({ prompt: 'x', urls: [`${siteUrl}/team`], webhook: { url: `${receiverUrl}/hook`, events: [...events] } });
      await settle(() => client.getAgent(ok.id));
      assert.deepEqual(await of(ok.id), [['agent.completed', true]]);
      script = () => 'not an object';
      const failed = await client.startAgent({ prompt: 'x', urls: [`${siteUrl}/team`], webhook: { url: `${receiverUrl}/hook`, events: [...events] } });
      assert.equal((await settle(() => client.getAgent(failed.id))).status, 'failed');
      assert.deepEqual(await of(failed.id), [['agent.failed', false]]);
      assert.match(deliveries.find((d) => d.id === failed.id)?.error ?? '', /JSON/);
    });

    test('a cancelled agent sends agent.cancelled; an agent spec refuses events it does not know', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => { release = r; });
      const slowSite = createServer((_req, res) => { void gate.then(() => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<p>late</p>'); }); });
      const slowUrl = await listen(slowSite);
      try {
        const { id } = await client.startAgent({ prompt: 'x', urls: [`${slowUrl}/`], webhook: { url: `${receiverUrl}/hook`, events: ['cancelled'] } });
        await client.cancelAgent(id);
        assert.deepEqual(await of(id), [['agent.cancelled', false]]);
      } finally {
        release();
        slowSite.closeAllConnections();
        await new Promise((r) => slowSite.close(r));
      }
      const bad = await fetch(`${svc.url}/v2/agent`, {
        method: 'POST',
        headers: { authorization: 'Bearer key-ai', 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'x', webhook: { url: `${receiverUrl}/hook`, events: ['page'] } }),
      });
      assert.equal(bad.status, 400);
    });
  });

  describe('token usage and queue status', () => {
    test('token usage counts the model tokens of agent and extract, month by month and per key', async () => {
      const usage = await client.getTokenUsage();
      const history = await client.getHistoricalTokenUsage();
      const used = history.periods.at(-1)!.totalTokens;
      assert.ok(used > 0 && used % 1500 === 0, `tokens ${used}`);
      assert.equal(usage.data.planTokens, 1000 * 1000);
      assert.equal(usage.data.remainingTokens, 1000 * 1000 - used);
      const byKey = await client.getHistoricalTokenUsage({ byApiKey: true });
      assert.equal(byKey.periods.at(-1)!.apiKey, 'key-ai');
      assert.equal(byKey.periods.at(-1)!.totalTokens, used);
    });

    test('queue status: no jobs yet', async () => {
      const q = await client.getQueueStatus();
      assert.deepEqual(
        { jobsInQueue: q.jobsInQueue, active: q.activeJobsInQueue, waiting: q.waitingJobsInQueue, max: q.maxConcurrency, last: q.mostRecentSuccess },
        { jobsInQueue: 0, active: 0, waiting: 0, max: 4, last: null },
      );
    });

    test('queue status: a completed batch is the most recent success', async () => {
      const { id } = await client.startBatchScrape({ urls: [`${siteUrl}/pricing`] });
      await settle(async () => {
        const s = await client.getBatchScrapeStatus(id);
        return { status: s.status === 'scraping' ? 'processing' : s.status };
      });
      const q = await client.getQueueStatus();
      assert.equal(q.jobsInQueue, 0);
      assert.ok(q.mostRecentSuccess && Date.parse(q.mostRecentSuccess) > 0);
    });
  });
});
