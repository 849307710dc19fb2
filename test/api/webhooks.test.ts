import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { WebDataApiError, parseWebhookPayload, signWebhookBody, verifyWebhookSignature } from '../../packages/client/src/index.js';
import { HOSTED_SIGNATURE_HEADER, SIGNATURE_HEADER, SIGNATURE_HEADERS, isJobDelivery } from '../../packages/client/src/webhooks.js';

const secret = 'whsec_test';
const ID = '01890f3c-7b1a-7cc2-9d3e-4f5a6b7c8d9e';
const payload = {
  success: true,
  type: 'crawl.page',
  id: ID,
  webhookId: '0190aaaa-bbbb-7ccc-8ddd-eeeeffff0000',
  data: [{ markdown: '# hi', metadata: { sourceURL: 'https://example.com/' } }],
  metadata: { run: 'r1' },
};
const raw = JSON.stringify(payload);

test('sign produces sha256=<hex> of the exact bytes', () => {
  const expected = createHmac('sha256', secret).update(raw).digest('hex');
  assert.equal(signWebhookBody(raw, secret), `sha256=${expected}`);
  assert.equal(signWebhookBody(Buffer.from(raw), secret), `sha256=${expected}`);
});

test('verify accepts a valid signature over string or Buffer, uppercase hex too', () => {
  const header = signWebhookBody(raw, secret);
  assert.equal(verifyWebhookSignature(raw, header, secret), true);
  assert.equal(verifyWebhookSignature(Buffer.from(raw), header, secret), true);
  assert.equal(verifyWebhookSignature(raw, `sha256=${header.slice(7).toUpperCase()}`, secret), true);
});

test('verify rejects tampering, wrong secret, missing and malformed headers', () => {
  const header = signWebhookBody(raw, secret);
  assert.equal(verifyWebhookSignature(raw + ' ', header, secret), false, 'one extra byte');
  assert.equal(verifyWebhookSignature(JSON.stringify(JSON.parse(raw), null, 2), header, secret), false, 're-serialized');
  assert.equal(verifyWebhookSignature(raw, header, 'other'), false);
  assert.equal(verifyWebhookSignature(raw, undefined, secret), false);
  assert.equal(verifyWebhookSignature(raw, '', secret), false);
  assert.equal(verifyWebhookSignature(raw, header.slice(7), secret), false, 'no sha256= prefix');
  assert.equal(verifyWebhookSignature(raw, 'sha256=zz', secret), false);
  assert.equal(verifyWebhookSignature(raw, `sha1=${header.slice(7)}`, secret), false);
  assert.equal(verifyWebhookSignature(raw, `${header}00`, secret), false, 'wrong length');
  assert.equal(verifyWebhookSignature(raw, header, ''), false, 'no secret configured');
});

test('parse: page, failed page, completed and started events', () => {
  const page = parseWebhookPayload(raw);
  assert.equal(page.type, 'crawl.page');
  assert.equal(page.webhookId, payload.webhookId);
  assert.deepEqual(page.metadata, { run: 'r1' });
  assert.deepEqual(page.data, payload.data);

  const failed = parseWebhookPayload({
    success: false,
    type: 'batch_scrape.page',
    id: ID,
    webhookId: 'w2',
    error: 'HTTP 500',
    data: [{ metadata: { sourceURL: 'https://example.com/x' } }],
  });
  assert.equal(failed.success, false);
  assert.equal(failed.error, 'HTTP 500');

  const done = parseWebhookPayload(Buffer.from(JSON.stringify({ success: true, type: 'crawl.completed', id: ID, webhookId: 'w3', data: [], metadata: null, extra: 1 })));
  assert.equal(done.type, 'crawl.completed');
  assert.equal(done.metadata, undefined);
  assert.equal(done.extra, 1);

  assert.equal(parseWebhookPayload({ success: true, type: 'batch_scrape.started', id: ID, webhookId: 'w4', data: [] }).type, 'batch_scrape.started');
});

test('parse rejects bad JSON and bad shapes with field-naming messages', () => {
  const cases: Array<[unknown, RegExp]> = [
    ['{not json', /not valid JSON/],
    [{ ...payload, type: undefined }, /type: is required/],
    [{ ...payload, type: '' }, /type:/],
    [[payload], /must be an object/],
    [{ ...payload, webhookId: '' }, /webhookId:/],
    [{ ...payload, id: undefined }, /id: is required/],
    [{ ...payload, data: 'x' }, /data: must be an array/],
    [{ ...payload, data: ['x'] }, /data\.0: must be a page document object/],
    [{ ...payload, success: 'yes' }, /success: must be a boolean/],
  ];
  for (const [input, message] of cases) {
    assert.throws(
      () => parseWebhookPayload(input),
      (err: unknown) => err instanceof WebDataApiError && err.kind === 'validation' && message.test(err.message),
      String(message),
    );
  }
});

test('parse: the open-source server\'s body (no webhookId) and the hosted crawl.cancelled', () => {
  const oss = parseWebhookPayload('{"success":true,"type":"crawl.completed","id":"6c1f3e2a-9b8d-4c7e-a5f6-0e1d2c3b4a59","data":[],"metadata":{"workflowId":"wf"}}');
  assert.equal(oss.type, 'crawl.completed');
  assert.equal('webhookId' in oss, false);
  assert.deepEqual(oss.metadata, { workflowId: 'wf' });
  assert.equal(parseWebhookPayload({ ...payload, webhookId: null }).webhookId, undefined);
  assert.equal(parseWebhookPayload({ success: true, type: 'crawl.cancelled', id: ID, webhookId: 'w5', data: [] }).type, 'crawl.cancelled');
});

test('parse: other kinds pass through as sent, never refused', () => {
  const cases: unknown[] = [
    { success: true, type: 'extract.completed', id: ID, webhookId: 'w6', data: { answer: 42 }, metadata: { a: 1 } },
    { type: 'agent.failed', data: null, error: { code: 'X' } },
    { type: 'monitor.check', monitorId: 'm1' },
    { ...payload, type: 'crawl.exploded', data: 'not an array', success: 'yes' },
  ];
  for (const input of cases) {
    const out = parseWebhookPayload(JSON.stringify(input));
    assert.deepEqual(out, input);
    assert.equal(isJobDelivery(out), false, JSON.stringify(input));
  }
  assert.equal(isJobDelivery(parseWebhookPayload(raw)), true);
});

test('signature headers: X-Firecrawl-Signature (hosted) and X-Service-Signature (reference, what we sign under)', () => {
  assert.equal(SIGNATURE_HEADER, 'x-service-signature');
  assert.equal(HOSTED_SIGNATURE_HEADER, 'x-firecrawl-signature');
  assert.deepEqual([...SIGNATURE_HEADERS].sort(), ['x-firecrawl-signature', 'x-service-signature']);
});
