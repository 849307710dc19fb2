// Untrusted input (issue 24) through every entry point: private and metadata addresses in any
// spelling, patterns that would need backtracking, oversized patterns and lists, a budget of 0
// and oversized free text are refused with one line naming the field and the rule. A counting
// server stands in for the service (nothing may reach it) and a real Temporal server proves that
// no workflow or schedule started. Private addresses are off here, explicitly.
process.env.WEBDATA_ALLOW_PRIVATE_ADDRESSES = '0';

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/client.js';
import { WebDataApiError } from '../../packages/client/src/errors.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { schedulePipeline } from '../../src/client/schedules.js';
import { startParseDocuments } from '../../src/client/parse-documents.js';
import { validatedInput } from '../../src/cli/run-options.js';
import { UsageError } from '../../src/cli/errors.js';
import { createWebDataWorker } from '../../src/worker/worker.js';
import { webDataPipeline } from '../../src/workflows/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { startTestTemporal } from '../helpers/temporal.js';
import { pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';

/** Each rule with an input that breaks it and the one line (or its start) a user sees. */
const RULES: Array<{ rule: string; input: Partial<PipelineInput>; line: RegExp }> = [
  { rule: 'metadata address', input: { url: 'http://169.254.169.254/latest/meta-data/' }, line: /^url: must be a public address: 169\.254\.169\.254 is a link-local address \(add 169\.254\.169\.254:80 to WEBDATA_ALLOW_PRIVATE_ADDRESSES to allow it\)$/ },
  { rule: 'private address', input: { url: 'http://10.0.0.1/' }, line: /^url: must be a public address: 10\.0\.0\.1 is a private address/ },
  { rule: 'decimal loopback', input: { url: 'http://2130706433/' }, line: /^url: must be a public address: 127\.0\.0\.1 is a loopback address/ },
  { rule: 'hex short loopback', input: { url: 'http://0x7f.1/' }, line: /^url: must be a public address: 127\.0\.0\.1 is a loopback address/ },
  { rule: 'octal loopback', input: { url: 'http://0177.0.0.1/' }, line: /^url: must be a public address: 127\.0\.0\.1 is a loopback address/ },
  { rule: 'IPv4-mapped IPv6', input: { url: 'http://[::ffff:10.1.2.3]/' }, line: /^url: must be a public address: \[::ffff:a01:203\] is a private address/ },
  { rule: 'localhost with a trailing dot', input: { url: 'http://localhost./' }, line: /^url: must be a public address: localhost\. is a loopback address/ },
  { rule: 'CGNAT webhook', input: { url: 'https://site.example/', webhookUrl: 'http://100.64.0.9/hook' }, line: /^webhookUrl: must be a public address: 100\.64\.0\.9 is a carrier-grade NAT address/ },
  { rule: 'agent URL in ULA', input: { url: 'https://site.example/', agent: { prompt: 'price', urls: ['http://[fd12::1]/'] } }, line: /^agent\.urls\.0: must be a public address: \[fd12::1\] is a private address/ },
  { rule: 'lookahead', input: { url: 'https://site.example/', select: { include: ['^/(?!admin)'] } }, line: /^select\.include\.0: negative lookahead \(\?! is not supported: patterns run in linear time \(RE2 syntax\)$/ },
  { rule: 'backreference', input: { url: 'https://site.example/', crawl: { includePaths: ['^/(\\w+)/\\1$'] } }, line: /^crawl\.includePaths\.0: a backreference \(\\1, \\k<name>\) is not supported/ },
  { rule: 'lookbehind in interact match', input: { url: 'https://site.example/', interact: { match: '(?<=shop)/x', code: '1' } }, line: /^interact\.match: lookbehind \(\?<= is not supported/ },
  { rule: 'pattern length', input: { url: 'https://site.example/', select: { include: ['a'.repeat(10_000)] } }, line: /^select\.include\.0: must be at most 1000 characters \(got 10000\)$/ },
  { rule: 'agent match length', input: { url: 'https://site.example/', agent: { prompt: 'p', match: 'b'.repeat(1001) } }, line: /^agent\.match: must be at most 1000 characters \(got 1001\)$/ },
  { rule: 'pattern count', input: { url: 'https://site.example/', crawl: { excludePaths: Array.from({ length: 101 }, (_, i) => `^/p${i}`) } }, line: /^crawl\.excludePaths: must have at most 100 items$/ },
  { rule: 'budget of 0', input: { url: 'https://site.example/', budget: { credits: 0 } }, line: /^budget\.credits: must be at least 1 \(0 only with waitForRaiseMs, to wait for raiseBudget\)$/ },
  { rule: 'header value size', input: { url: 'https://site.example/', batch: { scrapeOptions: { headers: { 'x-note': 'v'.repeat(8193) } } } }, line: /^batch\.scrapeOptions\.headers\.x-note: must have at most 8192 characters$/ },
  { rule: 'format prompt size', input: { url: 'https://site.example/', crawl: { scrapeOptions: { formats: [{ type: 'json', prompt: 'p'.repeat(10_001) }] } } }, line: /^crawl\.scrapeOptions\.formats\.0\.prompt: must have at most 10000 characters$/ },
];

let service: Server;
let serviceRequests = 0;
let serviceUrl = '';
let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;
let api: WebDataClient;
let dir: string;
let store: FilesystemStore;
const TASK_QUEUE = 'hostile-untrusted';

before(async () => {
  service = createServer((req, res) => {
    serviceRequests += 1;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"links":[]}');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'wd-untrusted-'));
  store = new FilesystemStore({ root: dir });
  // The service's own address is the deployment's, not a tenant's: a loopback base URL is fine.
  api = new WebDataClient({ apiKey: 'untrusted-key', baseUrl: serviceUrl, allowPrivateAddresses: false });
  env = await startTestTemporal();
  client = env.client;
  worker = await createWebDataWorker({ connection: env.nativeConnection, namespace: env.namespace, taskQueue: TASK_QUEUE, client: api, store, allowPrivateAddresses: false, metrics: false, workflowBundlePath: await pipelineWorkflowBundle() });
  running = worker.run();
});

after(async () => {
  worker?.shutdown();
  await running?.catch(() => {});
  await env?.teardown();
  await api?.close();
  await store?.close();
  service?.closeAllConnections();
  await new Promise<void>((resolve) => service?.close(() => resolve()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function assertNoWorkflow(workflowId: string): Promise<void> {
  await assert.rejects(client.workflow.getHandle(workflowId).describe(), WorkflowNotFoundError, `${workflowId} started`);
}

function issueLines(err: unknown): string[] {
  const issues = (err as { issues?: Array<{ path: string; message: string }> }).issues ?? [];
  return issues.map((i) => `${i.path}: ${i.message}`);
}

describe('untrusted input is refused before anything starts, connects or is sent', () => {
  for (const [i, { rule, input, line }] of RULES.entries()) {
    test(`${rule}: startPipeline, schedulePipeline, the CLI (flags and --input) refuse it with one line`, async () => {
      const before = serviceRequests;
      const workflowId = `untrusted-start-${i}`;
      const full = { url: 'https://site.example/', ...input } as PipelineInput;
      await assert.rejects(startPipeline(client, full, { taskQueue: TASK_QUEUE, workflowId }), (err: unknown) => {
        assert.ok(issueLines(err).some((l) => line.test(l)), `${rule}: ${String(err)}`);
        assert.doesNotMatch(String((err as Error).message), /\n/);
        return true;
      });
      await assertNoWorkflow(workflowId);

      const scheduleId = `untrusted-schedule-${i}`;
      await assert.rejects(schedulePipeline(client, full, { scheduleId, every: '1h', taskQueue: TASK_QUEUE }), (err: unknown) => issueLines(err).some((l) => line.test(l)));
      await assert.rejects(client.schedule.getHandle(scheduleId).describe(), /not found/i);

      // The CLI: the whole input from --input, and the URL as the argument.
      const file = join(dir, `input-${i}.json`);
      writeFileSync(file, JSON.stringify(full));
      assert.throws(() => validatedInput(undefined, { input: file }), (err: unknown) => {
        assert.ok(err instanceof UsageError, String(err));
        assert.ok(err.message.split('; ').some((part) => line.test(part.replace(/^invalid input \(input from --input [^)]+\): /, ''))), err.message);
        return true;
      });
      assert.equal(serviceRequests - before, 0, 'a request reached the service');
    });
  }

  test('CLI flags: a private start URL, a lookahead --include and a budget of 0 are usage errors naming the field', () => {
    const refused: Array<[string | undefined, Record<string, unknown>, RegExp]> = [
      ['http://169.254.169.254/', {}, /url: must be a public address: 169\.254\.169\.254 is a link-local address/],
      ['http://[::ffff:127.0.0.1]/', {}, /url: must be a public address: \[::ffff:7f00:1\] is a loopback address/],
      ['https://site.example/', { include: ['^/(?=a)'] }, /select\.include\.0: lookahead \(\?= is not supported/],
      ['https://site.example/', { include: ['x'.repeat(10_000)] }, /select\.include\.0: must be at most 1000 characters/],
      ['https://site.example/', { budget: '0' }, /budget\.credits: must be at least 1/],
    ];
    for (const [url, flags, line] of refused) {
      assert.throws(() => validatedInput(url, flags as never), (err: unknown) => err instanceof UsageError && line.test(err.message), `${url} ${JSON.stringify(flags).slice(0, 80)}`);
    }
  });

  test('an input may not grant itself private addresses: allowPrivateAddresses is the deployment\'s setting', async () => {
    const workflowId = 'untrusted-self-granted';
    await assert.rejects(
      startPipeline(client, { url: 'http://10.0.0.1/', allowPrivateAddresses: true }, { taskQueue: TASK_QUEUE, workflowId }),
      /allowPrivateAddresses: is the deployment's setting \(WEBDATA_ALLOW_PRIVATE_ADDRESSES or the allowPrivateAddresses option\), not part of a run's input/,
    );
    await assert.rejects(
      startPipeline(client, { url: 'http://10.0.0.1/', allowPrivateAddresses: ['10.0.0.1'] }, { taskQueue: TASK_QUEUE, workflowId }),
      /allowPrivateAddresses: is the deployment's setting/,
    );
    await assertNoWorkflow(workflowId);
  });

  test('parseDocuments: a budget of 0 is refused, no workflow started', async () => {
    const workflowId = 'untrusted-parse';
    await assert.rejects(startParseDocuments(client, { files: ['/tmp/a.pdf'], budget: { credits: 0 } }, { taskQueue: TASK_QUEUE, workflowId }), /budget\.credits: must be at least 1/);
    await assertNoWorkflow(workflowId);
  });

  test('WebDataClient: each rule refused before sending, one line naming the field', async () => {
    const before = serviceRequests;
    const refused: Array<[() => Promise<unknown>, RegExp]> = [
      [() => api.startCrawl({ url: 'http://169.254.169.254/' }), /^crawl start: url: must be a public address: 169\.254\.169\.254 is a link-local address/],
      [() => api.scrape({ url: 'http://0x7f.1/admin' }), /^scrape: url: must be a public address: 127\.0\.0\.1 is a loopback address/],
      [() => api.startBatchScrape({ urls: ['https://site.example/', 'http://[::ffff:192.168.0.1]/'] }), /^batch scrape start: urls\.1: must be a public address/],
      [() => api.map({ url: 'http://localhost./' }), /^map: url: must be a public address: localhost\. is a loopback address/],
      [() => api.startCrawl({ url: 'https://site.example/', webhook: { url: 'http://10.1.1.1/h' } }), /^crawl start: webhook\.url: must be a public address/],
      [() => api.startCrawl({ url: 'https://site.example/', includePaths: ['x'.repeat(10_000)] }), /^crawl body: includePaths\.0: must be at most 1000 characters \(got 10000\)$/],
      [() => api.startCrawl({ url: 'https://site.example/', excludePaths: ['(a)\\1'] }), /^crawl body: excludePaths\.0: a backreference/],
      [() => api.scrape({ url: 'https://site.example/', headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x-h${i}`, 'v'])) }), /^scrape body: headers: must set at most 50 headers$/],
      [() => api.scrape({ url: 'https://site.example/', actions: [{ type: 'executeJavascript', script: 's'.repeat(100_001) }] }), /^scrape body: actions\.0\.script: must have at most 100000 characters$/],
    ];
    for (const [call, line] of refused) {
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof WebDataApiError, String(err));
        assert.equal(err.kind, 'validation');
        assert.equal(err.retryable, false);
        assert.match(err.message, line);
        return true;
      });
    }
    assert.equal(serviceRequests - before, 0, 'a request reached the service');
  });

  test('the workflow\'s own check: a run started around the client fails at once, naming the field; nothing reaches the service', async () => {
    const before = serviceRequests;
    const cases: Array<[PipelineInput, RegExp]> = [
      [{ url: 'http://169.254.169.254/latest/meta-data/' }, /url: must be a public address: 169\.254\.169\.254 is a link-local address/],
      [{ url: 'https://site.example/', select: { include: ['^/(?=x)'] } }, /select\.include\.0: lookahead \(\?= is not supported/],
      [{ url: 'https://site.example/', budget: { credits: 0 } }, /budget\.credits: must be at least 1/],
    ];
    for (const [i, [input, line]] of cases.entries()) {
      const handle = await client.workflow.start(webDataPipeline, { taskQueue: TASK_QUEUE, workflowId: `untrusted-direct-${i}`, args: [input] });
      await assert.rejects(handle.result(), (err: unknown) => {
        assert.ok(err instanceof WorkflowFailedError, String(err));
        assert.match(String(err.cause?.message), line);
        return true;
      });
    }
    assert.equal(serviceRequests - before, 0, 'a request reached the service');
  });
});
