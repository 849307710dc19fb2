// Secrets stay in the worker (ARCHITECTURE principle 5): after pipelines that succeed (with
// signed webhooks), fail on the service (403) and fail against a hostile server that echoes
// the bearer token in its error bodies, the API key and the webhook secret appear nowhere in
// workflow histories (payloads decoded), memos, search attributes, summaries, queries, the
// worker's stdout/stderr (DEBUG level), the receiver's and the service's logs, the store
// folder, or the Temporal server's SQLite file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import proto from '@temporalio/proto';
import { getProgress, startPipeline } from '../../src/client/pipeline.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { startWebhookServer, type WebhookServer } from '../../src/webhooks/index.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';
import { startTestTemporal } from '../helpers/temporal.js';
import { spawnWorker, type WorkerProcess } from '../chaos/harness.js';
import { pipelineWorkflowBundle } from '../helpers/workflow-bundle.js';
import { allowPrivateHosts } from '../helpers/private-hosts.js';

const KEY = `sk-live-${randomUUID()}`;
const SECRET = `whsec-${randomUUID()}`;
const SECRETS = [KEY, SECRET];
/** Every form a secret could take in text: as is, base64 (a payload seen raw), URL-encoded. */
const FORMS = [...new Set(SECRETS.flatMap((s) => [s, Buffer.from(s).toString('base64'), encodeURIComponent(s)]))];

let dir: string;
let env: TestWorkflowEnvironment;
let service: LocalService;
let echo: Server;
let echoUrl: string;
let forgetHosts = () => {};
let webhook: WebhookServer;
let store: FilesystemStore;
const workers: WorkerProcess[] = [];
const workerLog: string[] = [];
const receiverLog: string[] = [];
const serviceLog: string[] = [];
const webhookOutcomes: string[] = [];
/** The runs' workflow ids by name (ok, forbidden, echo). */
const runs = new Map<string, string>();

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('secrets', () => {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webdata-secrets-'));
    env = await startTestTemporal({ dbFilename: join(dir, 'temporal.db') });
    const capture = (m: string, err?: unknown) => { serviceLog.push(`${m} ${err instanceof Error ? err.stack : String(err ?? '')}`); };
    service = await startLocalService({
      teams: [{
        id: 'secrets', apiKeys: [KEY], webhookSecret: SECRET, credits: 100_000, rateLimits: {}, concurrency: 4, maxBrowserSessions: 1,
        features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
      }],
      site: { pages: 30, searchIndex: false },
      logger: { info: capture, warn: capture, error: capture },
    });
    // A hostile (or broken) deployment that echoes the bearer token and the request in its errors.
    echo = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString(); });
      req.on('end', () => {
        res.writeHead(400, { 'content-type': 'application/json', 'x-echo-auth': String(req.headers.authorization) });
        res.end(JSON.stringify({
          success: false,
          error: `Invalid request with token ${String(req.headers.authorization)} (key ${KEY})`,
          code: KEY,
          details: [{ path: KEY, message: `bad ${req.headers.authorization}` }],
          headers: req.headers,
          id: KEY,
          body,
        }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    webhook = await startWebhookServer({
      client: env.client,
      secret: SECRET,
      log: (line) => receiverLog.push(line),
      onDecision: (d) => webhookOutcomes.push(d.outcome),
    });
    // Runs name the demo site and the receiver on 127.0.0.1: allowed by host:port, here and in
    // the workers spawned below, as a user would export it.
    forgetHosts = allowPrivateHosts(service.siteUrl as string, webhook.url);
    store = new FilesystemStore({ root: join(dir, 'store') });
    // The workflows bundled once (cached across test files), both workers started together.
    const bundlePath = await pipelineWorkflowBundle();
    for (const [apiUrl, queue] of [[service.url, 'secrets'], [echoUrl, 'secrets-echo']]) {
      workers.push(spawnWorker({ temporalAddress: env.address, serviceUrl: apiUrl, apiKey: KEY, store: join(dir, 'store'), taskQueue: queue, logLevel: 'DEBUG', bundlePath }, workerLog));
    }
    await Promise.all(workers.map((w) => w.ready));
  });

  after(async () => {
    forgetHosts();
    for (const w of workers) await w.kill('SIGKILL');
    await webhook?.close();
    echo?.closeAllConnections();
    await new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve()));
    await store?.close();
    await service?.close();
    await env?.teardown();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function runPipeline(input: PipelineInput, queue: string, name: string) {
    const workflowId = `secrets-${name}-${Date.now()}`;
    runs.set(name, workflowId);
    // Jobs polled from 200 ms backing off to 1 s (the default backs off to 30 s): only how soon the run goes on.
    const handle = await startPipeline(env.client, { polling: { minIntervalMs: 200, maxIntervalMs: 1_000 }, ...input }, { taskQueue: queue, workflowId });
    return handle.result();
  }

  /** Every string and byte array in a value, bytes decoded as UTF-8 (payload data, memo fields). */
  function texts(value: unknown, out: string[] = [], depth = 0): string[] {
    if (depth > 60 || value === null || value === undefined) return out;
    if (typeof value === 'string') out.push(value);
    else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
    else if (Array.isArray(value)) for (const v of value) texts(v, out, depth + 1);
    else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        out.push(k);
        texts(v, out, depth + 1);
      }
    }
    return out;
  }

  function filesUnder(root: string): string[] {
    const out: string[] = [];
    for (const name of readdirSync(root)) {
      const full = join(root, name);
      if (statSync(full).isDirectory()) out.push(...filesUnder(full));
      else out.push(full);
    }
    return out;
  }

  function findSecrets(where: string, text: string): string[] {
    return FORMS.filter((f) => text.includes(f)).map((f) => `${where}: contains ${f === KEY ? 'the API key' : f === SECRET ? 'the webhook secret' : 'an encoded secret'}`);
  }

  test('pipelines that succeed (with webhooks), fail on the service, and fail on a server echoing the token', { timeout: 600_000 }, async () => {
    const site = service.siteUrl as string;
    // The echoing server's run has its own worker and server: it runs beside the first one.
    const echoed = runPipeline({ url: `${site}/`, stages: { interact: false } }, 'secrets-echo', 'echo');
    echoed.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const ok = await runPipeline({
      url: `${site}/`,
      select: { include: ['^/docs', '^/blog/post-'] },
      crawl: { limit: 8, ignoreQueryParameters: true },
      stages: { interact: false },
      webhookUrl: webhook.url,
    }, 'secrets', 'ok');
    assert.equal(ok.status, 'completed', JSON.stringify(ok.stages));
    assert.ok(webhookOutcomes.includes('signalled'), `no signed webhook reached the workflow: ${webhookOutcomes.join(', ')}`);

    service.faults.set('secrets', { errorRate: 1, errorStatus: 403, routes: ['POST /v2/batch/scrape'] });
    try {
      const failed = await runPipeline({
        url: `${site}/`,
        select: { include: ['^/docs', '^/blog/post-'] },
        crawl: { limit: 4, ignoreQueryParameters: true },
        stages: { interact: false },
        webhookUrl: webhook.url,
      }, 'secrets', 'forbidden');
      assert.equal(failed.stages.batch?.status, 'failed', JSON.stringify(failed.stages));
    } finally {
      service.faults.set('secrets', undefined);
    }

    const echo = await echoed;
    assert.equal(echo.status, 'failed', JSON.stringify(echo.stages));
    assert.match(String(echo.stages.map?.reason), /HTTP 400/);
  });

  test('the API key and the webhook secret appear nowhere', async () => {
    assert.deepEqual([...runs.keys()].sort(), ['echo', 'forbidden', 'ok'], 'the pipelines did not all run');
    const found: string[] = [];
    let sawInput = false;
    for (const id of runs.values()) {
      const handle = env.client.workflow.getHandle(id);
      const history = await handle.fetchHistory();
      // The server's own encoding (bytes as they are stored) and every decoded string in it.
      const encoded = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
      const historyText = [encoded, ...texts(history)].join('\n');
      sawInput ||= historyText.includes(service.siteUrl as string);
      found.push(...findSecrets(`history of ${id}`, historyText));
      const description = await handle.describe();
      found.push(...findSecrets(`memo of ${id}`, texts(description.memo).join('\n')));
      found.push(...findSecrets(`search attributes of ${id}`, texts([description.searchAttributes, description.raw.workflowExecutionInfo?.searchAttributes]).join('\n')));
      found.push(...findSecrets(`summary/details of ${id}`, texts([description.staticSummary, description.staticDetails, description.raw]).join('\n')));
      const progress = await getProgress(env.client, id).catch(() => undefined);
      found.push(...findSecrets(`progress query of ${id}`, JSON.stringify(progress ?? {})));
    }
    // The scan reads decoded payloads (or it would prove nothing): the input URL is in them, and
    // the echoing server's message did reach the history, with the token redacted.
    assert.ok(sawInput, 'the history scan did not see the decoded input');
    const echoHistory = texts(await env.client.workflow.getHandle(runs.get('echo') as string).fetchHistory()).join('\n');
    assert.match(echoHistory, /Invalid request with token Bearer \[REDACTED\]/);

    const log = workerLog.join('');
    assert.ok(log.includes('webdata worker: task queue'), 'the worker log was not captured');
    found.push(...findSecrets('worker stdout/stderr', log));
    found.push(...findSecrets('webhook receiver log', receiverLog.join('\n')));
    found.push(...findSecrets('service log', serviceLog.join('\n')));

    const storeFiles = filesUnder(join(dir, 'store'));
    assert.ok(storeFiles.length > 0, 'the store is empty');
    for (const file of storeFiles) found.push(...findSecrets(`store file ${file.slice(dir.length)}`, readFileSync(file).toString('latin1')));

    const dbFiles = ['temporal.db', 'temporal.db-wal'].map((f) => join(dir, f)).filter((f) => existsSync(f));
    const db = dbFiles.map((f) => readFileSync(f).toString('latin1')).join('\n');
    assert.ok(db.includes(String(service.siteUrl)), 'the Temporal database does not hold the runs in clear (nothing to scan)');
    found.push(...findSecrets('Temporal SQLite file', db));

    assert.deepEqual(found, [], found.join('\n'));
  });

  test('the scanner itself finds a planted secret in every form', () => {
    const planted = join(dir, 'planted.txt');
    writeFileSync(planted, `x ${Buffer.from(KEY).toString('base64')} y`);
    assert.equal(findSecrets('planted', readFileSync(planted).toString('latin1')).length, 1);
    assert.equal(findSecrets('plain', `a${SECRET}b`).length, 1);
    assert.equal(findSecrets('bytes', texts({ payload: { data: new TextEncoder().encode(`"${KEY}"`) } }).join()).length, 1);
  });
});
