// Interact `prompt`: the agent loop against a scripted OpenAI-compatible endpoint on
// loopback (a stand-in model that always asks for the same tools), billed at the prompt rate.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../src/browser/chromium.js';
import { browserSessions } from '../src/browser/session-manager.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { startHarness, team, type Harness } from './browser-harness.js';

const chromiumPath = findChromium();

/** Replies in turn: click "load more", count the items, then a final answer using the count. */
function scriptedModel(): Promise<{ url: string; requests: unknown[]; close(): Promise<void> }> {
  const requests: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { messages: Array<{ role: string; content: string | null }>; tools: unknown[] };
      requests.push(body);
      const toolAnswers = body.messages.filter((m) => m.role === 'tool');
      const call = (name: string, args: unknown) => ({
        role: 'assistant', content: null,
        tool_calls: [{ id: `c${toolAnswers.length}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
      });
      const message = toolAnswers.length === 0
        ? call('click', { selector: '#load-more' })
        : toolAnswers.length === 1
          ? call('evaluate', { expression: "document.querySelectorAll('#catalog-items li').length" })
          : { role: 'assistant', content: `The catalog now lists ${toolAnswers[1].content} items.` };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  })));
}

describe('interact prompt', { skip: chromiumPath ? false : 'no Chromium installed', timeout: 300_000 }, () => {
  let h: Harness;
  let site: DemoSite;
  let model: Awaited<ReturnType<typeof scriptedModel>>;
  const saved = { ...process.env };

  before(async () => {
    site = await startDemoSite();
    model = await scriptedModel();
    h = await startHarness([team('t1')]);
    process.env.LLM_BASE_URL = model.url;
    process.env.LLM_MODEL = 'scripted';
    delete process.env.LLM_API_KEY;
  });
  after(async () => {
    for (const k of ['LLM_BASE_URL', 'LLM_MODEL', 'LLM_API_KEY']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await h?.close();
    await model?.close();
    await site?.close();
  });

  it('drives the page through tool calls, answers with the output and the final snapshot, bills 7/min', async () => {
    const scrape = await h.call('POST', '/v2/scrape', { url: `${site.url}/shop/catalog` });
    const jobId = (scrape.body.data as { metadata: { scrapeId: string } }).metadata.scrapeId;
    const res = await h.call('POST', `/v2/scrape/${jobId}/interact`, { prompt: 'Load more items and tell me how many there are' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.match(String(res.body.output), /^The catalog now lists (\d+) items\.$/);
    assert.ok(Number(/(\d+)/.exec(String(res.body.output))![1]) > 10);
    assert.match(String(res.body.result), /^URL: .*\/shop\/catalog/);
    assert.equal(model.requests.length, 3);
    const first = model.requests[0] as { model: string; tools: Array<{ function: { name: string } }> };
    assert.equal(first.model, 'scripted');
    assert.ok(first.tools.some((t) => t.function.name === 'click'));

    const stop = await h.call('DELETE', `/v2/scrape/${jobId}/interact`);
    assert.equal(stop.body.creditsBilled, 7);
  });

  it('destroys every session when the service closes', async () => {
    const created = await h.call('POST', '/v2/browser', { ttl: 60 });
    const session = browserSessions(h.ctx).get(String(created.body.id))!;
    const pid = session.chromiumProcess.pid;
    assert.doesNotThrow(() => process.kill(pid, 0));
    await h.close();
    assert.equal(session.status, 'destroyed');
    assert.throws(() => process.kill(pid, 0));
  });
});
