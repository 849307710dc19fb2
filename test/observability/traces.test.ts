// Acceptance: with OTEL_EXPORTER_OTLP_ENDPOINT set, the worker exports the spans of a run over
// OTLP/HTTP (JSON) to a receiver in this test: one trace, the workflow span above the activity
// spans above one span per request to the service, and no attribute holding the API key. The
// runtime's metrics (the package's included) reach the same endpoint over OTLP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { startStack } from '../helpers/stack.js';
import { startWorkerProcess, until, type WorkerProcess } from './worker-process.js';

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: unknown }
interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; attributes?: Array<{ key: string; value: OtlpValue }> }
interface TraceRequest { resourceSpans?: Array<{ resource?: { attributes?: Array<{ key: string; value: OtlpValue }> }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> }

let stack: DevStack;
let worker: WorkerProcess;
let receiver: Server;
const spans: OtlpSpan[] = [];
const serviceNames = new Set<string>();
const rawBodies: string[] = [];
const metricBodies: Buffer[] = [];
const contentTypes = new Set<string>();
const taskQueue = `observe-traces-${Date.now()}`;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('traces', () => {
  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        contentTypes.add(`${req.url} ${req.headers['content-type'] ?? ''}`);
        if (req.url === '/v1/traces') {
          const text = body.toString('utf8');
          rawBodies.push(text);
          const parsed = JSON.parse(text) as TraceRequest;
          for (const rs of parsed.resourceSpans ?? []) {
            for (const a of rs.resource?.attributes ?? []) if (a.key === 'service.name' && a.value.stringValue) serviceNames.add(a.value.stringValue);
            for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else if (req.url === '/v1/metrics') {
          metricBodies.push(body);
          res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
        } else {
          res.writeHead(404).end();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack = await startStack({ worker: false });
    worker = await startWorkerProcess(stack, taskQueue, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'webdata-test-worker', TEMPORAL_LOG_LEVEL: 'WARN' });
  });
  after(async () => {
    await worker?.stop();
    await stack?.close();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  });

  const HTTP_SPAN = /^(GET|POST|DELETE) \/v2\//;

  describe('OTLP traces of a pipeline run', () => {
    test('one trace: workflow span → activity spans → HTTP spans, parent-linked, no API key', async () => {
      const site = stack.service.siteUrl as string;
      const handle = await startPipeline(
        stack.temporal.client,
        { url: `${site}/`, select: { include: ['^/docs'] }, crawl: { limit: 5, maxDiscoveryDepth: 1 }, stages: { interact: false, support: false } },
        { taskQueue, workflowId: `observe-traces-${Date.now()}` },
      );
      const result = await handle.result();
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));

      const root = () => spans.find((s) => s.name === 'RunWorkflow:webDataPipeline');
      await until('the workflow span', () => root() !== undefined, 60_000);
      const traceId = root()?.traceId as string;
      // Spans end in batches: wait until every HTTP span has its activity span, the collection
      // included (streaming collection: the job's follower, followJob, reads its pages).
      const ofTrace = () => spans.filter((s) => s.traceId === traceId);
      await until('the collect activity and its HTTP spans', () => {
        const t = ofTrace();
        const ids = new Set(t.map((s) => s.spanId));
        return t.some((s) => s.name === 'RunActivity:followJob') && t.filter((s) => HTTP_SPAN.test(s.name)).every((s) => s.parentSpanId && ids.has(s.parentSpanId));
      }, 60_000);

      const trace = ofTrace();
      const byId = new Map(trace.map((s) => [s.spanId, s]));
      const names = trace.map((s) => s.name);
      assert.ok(!root()?.parentSpanId || !byId.has(root()?.parentSpanId as string), 'the workflow span is the root of the run');
      for (const activity of ['mapToStore', 'startCrawl', 'followJob']) {
        assert.ok(names.includes(`RunActivity:${activity}`), `no span of activity ${activity}: ${[...new Set(names)].join(', ')}`);
      }
      // Every span of the run descends from the workflow span.
      const rootId = root()?.spanId;
      for (const s of trace) {
        let at: OtlpSpan | undefined = s;
        for (let hops = 0; at && at.spanId !== rootId && hops < 20; hops++) at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined;
        assert.equal(at?.spanId, rootId, `span ${s.name} does not descend from the workflow span`);
      }
      // HTTP spans are children of activity spans; every request of the run is in this trace.
      const http = trace.filter((s) => HTTP_SPAN.test(s.name));
      assert.ok(http.length >= 3, `HTTP spans: ${http.map((s) => s.name).join(', ')}`);
      for (const s of http) assert.match(byId.get(s.parentSpanId as string)?.name ?? '', /^RunActivity:/, `parent of ${s.name}`);
      const crawlStart = http.find((s) => s.name === 'POST /v2/crawl');
      assert.equal(byId.get(crawlStart?.parentSpanId as string)?.name, 'RunActivity:startCrawl');
      assert.ok(http.some((s) => s.name === 'GET /v2/crawl/{id}' && byId.get(s.parentSpanId as string)?.name === 'RunActivity:followJob'), 'status pages under the follower');
      const status = crawlStart?.attributes?.find((a) => a.key === 'http.response.status_code')?.value.intValue;
      assert.equal(Number(status), 200);
      assert.deepEqual(spans.filter((s) => HTTP_SPAN.test(s.name) && s.traceId !== traceId).map((s) => s.name), [], 'HTTP spans outside the run\'s trace');
      assert.deepEqual([...serviceNames], ['webdata-test-worker']);

      // The API key is in no attribute, and nowhere in what was exported.
      const key = stack.service.apiKey;
      for (const s of spans) for (const a of s.attributes ?? []) assert.ok(!JSON.stringify(a.value).includes(key), `attribute ${a.key} of ${s.name} holds the API key`);
      assert.ok(!rawBodies.some((b) => b.includes(key)), 'the API key was exported');
    });

    test('metrics reach the same OTLP endpoint (runtime and package metrics)', async () => {
      await until('package metrics over OTLP', () => metricBodies.some((b) => b.includes('webdata_http_requests')), 60_000);
      assert.ok(metricBodies.some((b) => b.includes('temporal_')), 'no runtime metrics over OTLP');
      assert.ok(!metricBodies.some((b) => b.includes(stack.service.apiKey)));
    });
  });
});
