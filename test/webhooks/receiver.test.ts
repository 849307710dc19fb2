// The webhook receiver against hostile deliveries: nothing unverified reaches Temporal.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { Client } from '@temporalio/client';
import { signWebhookBody } from '../../packages/client/src/webhooks.js';
import { startWebhookServer, type WebhookServer } from '../../packages/temporal/src/webhooks/index.js';

const SECRET = 'whsec-test-0123456789';
const signals: Array<{ workflowId: string; args: unknown[] }> = [];
let failSignals = false;
/** Records signals instead of sending them: these tests are about what is refused. */
const fakeClient = {
  workflow: {
    getHandle: (workflowId: string) => ({
      signal: async (_def: unknown, ...args: unknown[]) => {
        if (failSignals) throw new Error('workflow not found');
        signals.push({ workflowId, args });
      },
    }),
  },
} as unknown as Client;

let server: WebhookServer;
before(async () => {
  server = await startWebhookServer({ client: fakeClient, secret: SECRET, maxBodyBytes: 64 * 1024 });
});
after(() => server.close());
beforeEach(() => {
  signals.length = 0;
  failSignals = false;
});

function payload(type = 'crawl.completed', extra: Record<string, unknown> = {}) {
  return JSON.stringify({ success: true, type, id: randomUUID(), webhookId: randomUUID(), data: [], metadata: { workflowId: 'wf-1' }, ...extra });
}

async function deliver(body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await request(server.url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.statusCode, body: (await res.body.json()) as { outcome: string; reason: string } };
}

const signed = (body: string, secret = SECRET) => ({ 'x-service-signature': signWebhookBody(body, secret) });

describe('accepted deliveries', () => {
  test('a signed job-level event signals the workflow named in metadata', async () => {
    const body = payload();
    const res = await deliver(body, signed(body));
    assert.equal(res.status, 200);
    assert.equal(signals.length, 1);
    assert.equal(signals[0].workflowId, 'wf-1');
    const [arg] = signals[0].args as [{ type: string }];
    assert.equal(arg.type, 'crawl.completed');
  });

  test('page events are acknowledged but never signalled', async () => {
    const body = payload('crawl.page', { data: [{ markdown: 'x', metadata: { sourceURL: 'http://a/' } }] });
    const res = await deliver(body, signed(body));
    assert.equal(res.status, 202);
    assert.equal(res.body.outcome, 'ignored');
    assert.equal(signals.length, 0);
  });

  test('a failed signal is acknowledged and the webhookId may be delivered again', async () => {
    const body = payload();
    failSignals = true;
    assert.equal((await deliver(body, signed(body))).status, 202);
    failSignals = false;
    assert.equal((await deliver(body, signed(body))).status, 200);
    assert.equal(signals.length, 1);
  });
});

describe('rejected deliveries send no signal', () => {
  test('forged signature', async () => {
    const body = payload();
    const res = await deliver(body, { 'x-service-signature': `sha256=${'0'.repeat(64)}` });
    assert.equal(res.status, 401);
  });
  test('signature made with the wrong secret', async () => {
    const body = payload();
    assert.equal((await deliver(body, signed(body, 'another-secret'))).status, 401);
  });
  test('missing signature', async () => {
    assert.equal((await deliver(payload())).status, 401);
  });
  test('body changed after signing', async () => {
    const body = payload();
    const headers = signed(body);
    assert.equal((await deliver(body.replace('crawl.completed', 'crawl.failed'), headers)).status, 401);
  });
  test('truncated body (signed as sent, but not JSON)', async () => {
    const body = payload().slice(0, 40);
    const res = await deliver(body, signed(body));
    assert.equal(res.status, 400);
  });
  test('valid JSON that is not a webhook payload', async () => {
    const body = JSON.stringify({ hello: 'world' });
    assert.equal((await deliver(body, signed(body))).status, 400);
  });
  test('no workflow in metadata', async () => {
    const body = payload('crawl.completed', { metadata: {} });
    assert.equal((await deliver(body, signed(body))).status, 422);
  });
  test('replayed webhookId', async () => {
    const body = payload();
    assert.equal((await deliver(body, signed(body))).status, 200);
    const again = await deliver(body, signed(body));
    assert.equal(again.status, 409);
    assert.equal(signals.length, 1);
    signals.length = 0;
  });
  test('oversized body', async () => {
    const body = payload('crawl.completed', { padding: 'x'.repeat(100 * 1024) });
    assert.equal((await deliver(body, signed(body))).status, 413);
  });
  test('wrong content type', async () => {
    const body = payload();
    assert.equal((await deliver(body, { ...signed(body), 'content-type': 'text/plain' })).status, 415);
  });
  test('wrong method', async () => {
    const res = await request(server.url, { method: 'GET' });
    assert.equal(res.statusCode, 405);
    await res.body.dump();
  });
  test('nothing was signalled by any rejected delivery', () => {
    assert.equal(signals.length, 0);
  });
});
