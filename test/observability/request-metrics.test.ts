// The client's request observer wired to the package's metrics: routes with ids as `{id}`, a 429
// counted with the Retry-After wait it asked for, failures without a response as status `none`,
// and an observer that throws never breaks a request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricMeter, MetricTags } from '@temporalio/common';
import { WebDataClient } from 'webdata-client';
import { createWebDataMetrics } from '../../src/worker/metrics.js';

interface Recorded { name: string; value: number; tags: MetricTags }

function recordingMeter(records: Recorded[]): MetricMeter {
  const metric = (name: string, kind: string) => {
    const m = {
      name, kind, valueType: 'int',
      add: (value: number, tags: MetricTags = {}) => records.push({ name, value, tags }),
      record: (value: number, tags: MetricTags = {}) => records.push({ name, value, tags }),
      set: (value: number, tags: MetricTags = {}) => records.push({ name, value, tags }),
      withTags: () => m,
    };
    return m;
  };
  const meter = {
    createCounter: (name: string) => metric(name, 'counter'),
    createHistogram: (name: string) => metric(name, 'histogram'),
    createGauge: (name: string) => metric(name, 'gauge'),
    withTags: () => meter,
  };
  return meter as unknown as MetricMeter;
}

test('request metrics: route templates, 429 with Retry-After, no-response failures; a throwing observer is ignored', async () => {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/v2/crawl/')) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' }).end(JSON.stringify({ success: false, error: 'Rate limit exceeded' }));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, links: [] }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const records: Recorded[] = [];
  const metrics = createWebDataMetrics(recordingMeter(records));
  const client = new WebDataClient({ apiKey: 'wd-test-key', baseUrl: url, observer: metrics.observer });
  const jobId = '0b8e5f5e-4c1a-4b8e-9a43-3f1f6d2c7a10';
  try {
    await assert.rejects(client.getCrawlStatus(jobId), (err: { kind?: string }) => err.kind === 'rate_limited');
    await client.map({ url: 'https://example.com' });
    const requests = records.filter((r) => r.name === 'webdata_http_requests');
    assert.deepEqual(requests.map((r) => r.tags), [
      // Outside an activity there is no run, so the tenant label is `default`.
      { method: 'GET', route: '/v2/crawl/{id}', status: '429', tenant: 'default' },
      { method: 'POST', route: '/v2/map', status: '200', tenant: 'default' },
    ]);
    assert.deepEqual(records.filter((r) => r.name === 'webdata_rate_limited').map((r) => [r.value, r.tags.route]), [[1, 'GET /v2/crawl/{id}']]);
    assert.deepEqual(records.filter((r) => r.name === 'webdata_retry_after_wait_seconds').map((r) => r.value), [2]);
    assert.ok(records.some((r) => r.name === 'webdata_http_request_duration_seconds' && r.value >= 0 && r.value < 30));
  } finally {
    await client.close();
    await new Promise<void>((r) => server.close(() => r()));
  }

  // Nobody listening: no status, the error kind; the request still fails as it would.
  const outcomes: Array<{ status?: number; errorKind?: string }> = [];
  const down = new WebDataClient({
    apiKey: 'wd-test-key',
    baseUrl: url,
    observer: {
      onRequest: () => { throw new Error('observer bug'); },
      onResponse: (o) => { outcomes.push({ status: o.status, errorKind: o.errorKind }); throw new Error('observer bug'); },
    },
  });
  try {
    await assert.rejects(down.map({ url: 'https://example.com' }), (err: { kind?: string }) => err.kind === 'network');
    assert.deepEqual(outcomes, [{ status: undefined, errorKind: 'network' }]);
  } finally {
    await down.close();
  }
});
