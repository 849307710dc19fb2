// Support ask with a model configured: the model may reword the answer, never change the
// diagnosis or the fix; a rewrite that loses a number or a parameter name is not used.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { RouteRequest } from '../src/core/routes.js';
import type { LlmConfig } from '../src/crawl-prompt/index.js';
import { keepsFacts } from '../src/support/rephrase.js';
import { askSupport } from '../src/support/index.js';
import { checkEnvelope, startSupportStack, team, type SupportStack } from './support-harness.js';

type Rewrite = (answer: string) => string;

describe('support ask with a model', () => {
  let stack: SupportStack;
  let server: Server;
  let llm: LlmConfig;
  const rewrites: Rewrite[] = [];

  before(async () => {
    stack = await startSupportStack({ teams: [team('poor', { credits: 0 })] });
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: Array<{ content: string }> };
        const answer = body.messages[1].content.split('\n\nAnswer: ')[1];
        const rewrite = rewrites.shift();
        if (!rewrite) {
          res.writeHead(500).end('no reply');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { content: rewrite(answer) } }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    llm = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: 'm' };
  });
  after(async () => {
    await stack?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const request = (question: string): RouteRequest => ({
    method: 'POST', path: '/v2/support/ask', params: {}, query: new URLSearchParams(), body: { question }, headers: {},
    team: stack.app.teams.byId('poor')!, apiKey: 'key-poor', requestId: 'req-1', baseUrl: stack.api, signal: new AbortController().signal,
  });

  test('a rewrite that keeps every fact is used', async () => {
    rewrites.push((a) => `Right now: ${a.replace('Your team has', 'your team has')}`);
    const res = await askSupport(stack.ctx, request('Why 402?'), { llm });
    const envelope = res.body as Parameters<typeof checkEnvelope>[0];
    checkEnvelope(envelope);
    assert.match(envelope.answer, /^Right now: your team has 0 credits left/);
    assert.equal(envelope.fixParameters, null);
    assert.equal(envelope.requestId, 'req-1');
  });

  test('a rewrite that drops numbers, or a failing model, leaves the answer as it was', async () => {
    rewrites.push(() => 'You are out of credits. Buy more.');
    const dropped = await askSupport(stack.ctx, request('Why 402?'), { llm });
    assert.match((dropped.body as { answer: string }).answer, /^Your team has 0 credits left/);
    const failing = await askSupport(stack.ctx, request('Why 402?'), { llm });
    assert.match((failing.body as { answer: string }).answer, /^Your team has 0 credits left/);
  });

  test('keepsFacts', () => {
    const fix = { timeout: 6000 };
    const original = 'The page needs 2.5 s. Set timeout to 6000 ms.';
    assert.ok(keepsFacts(original, 'It takes about 2.5 s to load, so raise timeout to 6000 ms.', fix));
    assert.ok(!keepsFacts(original, 'It takes about 2.5 s, so raise the timeout to 6 seconds.', fix));
    assert.ok(!keepsFacts(original, 'Raise timeout to 6000 ms because the page takes 2.5 s. A. B. C. D.', fix));
  });
});
