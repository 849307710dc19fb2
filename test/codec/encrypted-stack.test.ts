// Encrypted payloads on the real stack: a Temporal dev server, the local service, a worker and
// the stack's client, all with WEBDATA_PAYLOAD_KEYS' codec. A run's raw history (read without a
// codec) holds none of what its tenant gave (URL, patterns, search text, interact code) and a
// failed run's message is not in it either; the same history read by the real `temporal` CLI
// through the codec server has them all. The codec server's auth and CORS are checked over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import proto from '@temporalio/proto';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { startPipeline } from '../../src/client/pipeline.js';
import { parsePayloadKeys, startCodecServer, type CodecServer } from '../../src/codec/index.js';
import { resolveTemporalCli } from '../../src/devserver/temporal-cli.js';
import { createWebDataWorker } from '../../src/worker/worker.js';
import { PIPELINE_WORKFLOW_TYPE } from '../../src/workflows/definitions.js';
import { TARGET_HOST } from '../../src/search-attributes.js';
import { startStack, TEST_POLLING } from '../helpers/stack.js';
import { encryptedPipelineWorkflowBundle, pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';
import { runCliProcess } from '../helpers/cli.js';

const run = promisify(execFile);
// A fixed test key (never used outside the tests).
const KEYS_TEXT = `e2e-key=${Buffer.alloc(32, 0x5c).toString('base64')}`;
const KEYS = parsePayloadKeys(KEYS_TEXT);
const TASK_QUEUE = 'webdata';
const SECRETS = {
  include: 'zz-codec-secret-include',
  search: 'zz-codec-secret-search',
  code: 'zz-codec-secret-interact-code',
  badPattern: '(zz-codec-secret-bad-pattern',
};
const TOKEN = 'codec-test-token-0123456789';

let stack: DevStack;
let site: string;
let auth: CodecServer;

/** Every event of a run as the server stores it (no codec), as protobuf bytes, and its description. */
async function rawHistory(client: Client, workflowId: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId }, nextPageToken });
    chunks.push(Buffer.from(proto.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse.encode(page).finish()));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  const described = await client.workflowService.describeWorkflowExecution({ namespace: 'default', execution: { workflowId } });
  chunks.push(Buffer.from(proto.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse.encode(described).finish()));
  return Buffer.concat(chunks);
}

/**
 * The JSON the CLI prints, with each payload it left in base64 (those nested in failures, for
 * one) appended decoded: the text a reader of the decoded history sees.
 */
function withPayloadsDecoded(json: string): string {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.data === 'string' && o.metadata && typeof o.metadata === 'object') found.push(Buffer.from(o.data, 'base64').toString('utf8'));
      Object.values(o).forEach(walk);
    }
  };
  walk(JSON.parse(json));
  return [json, ...found].join('\n');
}

/** The run's history as `temporal workflow show --output json` prints it through the codec server. */
async function shownThroughCodec(workflowId: string, codecUrl: string, extra: string[] = []): Promise<string> {
  const cli = await resolveTemporalCli();
  assert.ok(cli.path, 'a temporal binary on this machine');
  const { stdout } = await run(cli.path, ['workflow', 'show', '--workflow-id', workflowId, '--address', stack.temporal.address, '--namespace', stack.temporal.namespace, '--codec-endpoint', codecUrl, ...extra, '--output', 'json'], { maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
  return withPayloadsDecoded(stdout);
}

/** `webdata <args>` as a user runs it (bin/webdata.js, the compiled CLI), with `env` only. */
const webdata = (args: string[], env: NodeJS.ProcessEnv) => runCliProcess(args, { env, cleanEnv: true });

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('encrypted-stack', () => {
  before(async () => {
    stack = await startStack({ payloadKeys: KEYS, workflowBundlePath: await encryptedPipelineWorkflowBundle() });
    site = stack.service.siteUrl as string;
    auth = await startCodecServer({ keyring: KEYS, authToken: TOKEN });
  });
  after(async () => {
    await auth?.close();
    await stack?.close();
  });

  test('a run: nothing of its input in the raw history, all of it through the codec server', async () => {
    const client = stack.temporal.client;
    const handle = await startPipeline(client, {
      url: `${site}/docs`,
      mode: 'batch',
      polling: TEST_POLLING,
      select: { include: ['^/docs', SECRETS.include], search: SECRETS.search, limit: 3 },
      interact: { match: '/zz-no-such-page', code: `'${SECRETS.code}'.length`, maxPages: 1 },
    }, { taskQueue: TASK_QUEUE });
    const result = await handle.result();
    assert.equal(result.status, 'completed', JSON.stringify(result.stages));
    assert.ok((result.stages.batch?.documents ?? 0) > 0, 'pages were stored');

    // What stays in clear says nothing of the host: the id and the search attributes.
    assert.match(handle.workflowId, /^webdata-\d+-[0-9a-f]{8}$/);
    const described = await handle.describe();
    assert.equal(described.typedSearchAttributes.get(TARGET_HOST), undefined, 'no WebdataTargetHost');

    const raw = await rawHistory(client, handle.workflowId);
    // Search attributes are json/plain payloads in clear, by design: the run's own are checked above.
    const hidden = [site, new URL(site).host, SECRETS.include, SECRETS.search, SECRETS.code, '"url"'];
    for (const s of hidden) assert.ok(!raw.includes(s), `raw history holds "${s}"`);
    assert.ok(raw.includes('binary/encrypted') && raw.includes('e2e-key'), 'the payloads are ours');

    const codec = stack.codec as CodecServer;
    const shown = await shownThroughCodec(handle.workflowId, codec.url);
    for (const s of [site, SECRETS.include, SECRETS.search, SECRETS.code]) assert.ok(shown.includes(s), `decoded history lacks "${s}"`);
    assert.ok(!shown.includes('binary/encrypted'), 'every payload decoded');

    // The CLI reads it with the same setting; a malformed one is one line, exit 2, no key text.
    const status = await webdata(['status', handle.workflowId, '--json'], { TEMPORAL_ADDRESS: stack.temporal.address, WEBDATA_PAYLOAD_KEYS: KEYS_TEXT });
    assert.equal(status.code, 0, status.err);
    assert.equal((JSON.parse(status.out) as { status: string }).status, 'completed');
    const bad = await webdata(['status', handle.workflowId], { TEMPORAL_ADDRESS: stack.temporal.address, WEBDATA_PAYLOAD_KEYS: KEYS_TEXT.slice(0, 30) });
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^webdata status: WEBDATA_PAYLOAD_KEYS: entry 1: the key \(after the first =\) must be 32 bytes in base64.*\n$/);
    assert.ok(!bad.err.includes(KEYS_TEXT.slice(8, 30)));
  });

  test("a failed run: its failure message is encoded too, and the client reads it back", async () => {
    const client = stack.temporal.client;
    const workflowId = `codec-failed-${Date.now()}`;
    // Past the client's own check (which would refuse it before the start): the workflow refuses it.
    const handle = await client.workflow.start(PIPELINE_WORKFLOW_TYPE, { taskQueue: TASK_QUEUE, workflowId, args: [{ url: `${site}/docs`, select: { include: [SECRETS.badPattern] } }] });
    const failure = await handle.result().then(() => undefined, (err: unknown) => err);
    assert.ok(failure instanceof WorkflowFailedError, String(failure));
    assert.match(String(failure.cause?.message), /zz-codec-secret-bad-pattern/, 'the client decodes the message');

    const raw = await rawHistory(client, workflowId);
    assert.ok(!raw.includes('zz-codec-secret-bad-pattern'), 'the failure message is not in clear');
    assert.ok(raw.includes('Encoded failure'));
    const shown = await shownThroughCodec(workflowId, (stack.codec as CodecServer).url);
    assert.ok(shown.includes('zz-codec-secret-bad-pattern'), 'the decoded history has the message');

    // Activities' failures are converted in the worker's main thread: the same converter there.
    const converter = stack.worker?.options.loadedDataConverter.failureConverter as unknown as { options: { encodeCommonAttributes: boolean } };
    assert.equal(converter.options.encodeCommonAttributes, true);
  });

  test('the codec server with a token: 401 without it, the history with it', async () => {
    const body = JSON.stringify({ payloads: [] });
    const refused = await fetch(`${auth.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(refused.status, 401);
    assert.deepEqual(Object.keys((await refused.json()) as object), ['error']);
    const wrong = await fetch(`${auth.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body });
    assert.equal(wrong.status, 401);
    const ok = await fetch(`${auth.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'x-namespace': 'default' }, body });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { payloads: [] });
    // The temporal CLI sends the header given with --codec-auth.
    const runs = await stack.temporal.client.workflow.list({ query: `WorkflowType="${PIPELINE_WORKFLOW_TYPE}"` });
    for await (const r of runs) {
      const shown = await shownThroughCodec(r.workflowId, auth.url, ['--codec-auth', `Bearer ${TOKEN}`]);
      assert.ok(!shown.includes('binary/encrypted'));
      break;
    }
  });

  test('CORS: the UI origin is answered, another origin is not', async () => {
    const codec = stack.codec as CodecServer;
    const ui = 'http://localhost:8233';
    const other = 'https://elsewhere.example';
    // The stack has no UI here (ui: false): the standalone defaults (the local UI's origins) apply.
    const preflight = (origin: string) => fetch(`${auth.url}/decode`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace,authorization' } });
    const allowed = await preflight(ui);
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-allow-origin'), ui);
    assert.equal(allowed.headers.get('access-control-allow-credentials'), 'true');
    assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /X-Namespace/);
    const refused = await preflight(other);
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    const post = await fetch(`${codec.url}/decode`, { method: 'POST', headers: { origin: other, 'content-type': 'text/plain' }, body: '{"payloads":[]}' });
    assert.equal(post.status, 403);
  });

  test('a prebuilt bundle must match the worker: keys with a plain bundle, or no keys with an encrypted one, refused in one line', async () => {
    const base = { connection: stack.temporal.env.nativeConnection, taskQueue: 'codec-mismatch', client: stack.api, store: stack.store };
    await assert.rejects(createWebDataWorker({ ...base, payloadKeys: KEYS, workflowBundlePath: await pipelineWorkflowBundle() }), /^WorkerSettingsError: WEBDATA_WORKFLOW_BUNDLE: .* was built without the encoded failure converter/);
    await assert.rejects(createWebDataWorker({ ...base, workflowBundlePath: await encryptedPipelineWorkflowBundle() }), /was built for encrypted payloads/);
  });
});
