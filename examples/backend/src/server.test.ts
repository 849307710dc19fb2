// The HTTP starter against a real Temporal (the time-skipping test server, no worker needed: a
// started crawl waits on its task queue): the same request posted twice starts one crawl.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { preparePipelineInput } from 'webdata-temporal';
import { createWebhookHandler } from 'webdata-temporal/webhooks';
import { createCrawlApi } from './http-api.js';
import { startTimeSkipping } from './test-support/time-skipping.js';

let env: TestWorkflowEnvironment;
let server: Server;
let base: string;
const taskQueue = 'server-test';

before(async () => {
  env = await startTimeSkipping();
  const webhooks = createWebhookHandler({ client: env.client, secret: 'a-test-secret-of-some-length', log: () => {} });
  server = createServer(createCrawlApi({ client: env.client, taskQueue, webhookUrl: 'https://backend.example.com/webhooks', webhooks }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await env?.teardown();
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('the same request posted twice starts one crawl; the second post answers the first run\'s ids', async () => {
  const request = { customer: 'acme', url: 'https://docs.example.com/', include: ['^/docs'], limit: 5 };
  const first = await post('/crawls', request);
  const second = await post('/crawls', request);
  assert.equal(first.status, 201);
  assert.equal(first.body.created, true);
  assert.match(String(first.body.id), /^crawl-acme-[0-9a-f]{20}$/);
  assert.equal(second.status, 200);
  assert.deepEqual(second.body, { ...first.body, created: false });
  // The latest run of that id is still the first one: no second run was started.
  assert.equal((await env.client.workflow.getHandle(String(first.body.id)).describe()).runId, first.body.runId);
  // Another request of the same customer is another crawl.
  const other = await post('/crawls', { ...request, limit: 6 });
  assert.equal(other.status, 201);
  assert.notEqual(other.body.id, first.body.id);
});

test('a client\'s request id names the crawl, and a retry after the crawl has ended starts nothing new', async () => {
  const request = { customer: 'acme', url: 'https://docs.example.com/', requestId: 'order-1234' };
  const first = await post('/crawls', request);
  assert.equal(first.status, 201);
  assert.equal(first.body.id, 'crawl-acme-order-1234');
  await env.client.workflow.getHandle('crawl-acme-order-1234').terminate('the test ends it');
  const retry = await post('/crawls', request);
  assert.equal(retry.status, 200);
  assert.deepEqual(retry.body, { ...first.body, created: false });
});

test('the crawl starts the example\'s workflow with the pipeline input the request asks, the receiver as its webhook', async () => {
  const started = await post('/crawls', { customer: 'globex', url: 'https://globex.example.com/', limit: 3 });
  const described = await env.client.workflow.getHandle(String(started.body.id)).describe();
  assert.equal(described.type, 'customerCrawl');
  assert.equal(described.taskQueue, taskQueue);
  const history = await env.client.workflow.getHandle(String(started.body.id)).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  const input = JSON.parse(Buffer.from(payload ?? new Uint8Array()).toString('utf8')) as { customer: string; pipeline: Record<string, unknown> };
  assert.equal(input.customer, 'globex');
  // As the package prepares it (with the deployment's address setting recorded, when it has one).
  const asked = { url: 'https://globex.example.com/', select: { limit: 3 }, crawl: { limit: 3 }, webhookUrl: 'https://backend.example.com/webhooks' };
  assert.deepEqual(input.pipeline, preparePipelineInput(asked));
});

test('bad input is refused before anything starts, with one line naming the field', async () => {
  assert.deepEqual(await post('/crawls', { url: 'https://docs.example.com/' }), {
    status: 400, body: { error: 'customer: required, must be 1-64 letters, digits, dot, dash or underscore, starting with a letter or digit' },
  });
  const badUrl = await post('/crawls', { customer: 'acme', url: 'ftp://x' });
  assert.equal(badUrl.status, 400);
  assert.match(String(badUrl.body.error), /url: /);
  const badLimit = await post('/crawls', { customer: 'acme', url: 'https://docs.example.com/', limit: 0 });
  assert.deepEqual(badLimit, { status: 400, body: { error: 'limit: must be a whole number from 1 to 1000' } });
  const unknown = await fetch(`${base}/crawls/crawl-nobody-1`);
  assert.equal(unknown.status, 404);
});

test('/webhooks is the package\'s receiver: an unsigned delivery is refused when a secret is set', async () => {
  const delivery = await post('/webhooks', { success: true, type: 'crawl.completed', id: 'job-1', data: [], metadata: { workflowId: 'crawl-acme-1-pipeline' } });
  assert.equal(delivery.status, 401);
});
