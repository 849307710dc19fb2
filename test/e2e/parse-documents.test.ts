// The parseDocuments workflow on the real stack: Temporal dev server, a worker, the local
// service parsing real files made here (PDF, DOCX, HTML, text). The worker's client goes through
// a proxy, so a test can make the service fail transiently or hold a file mid-run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { getParseProgress, startParseDocuments } from '../../src/client/parse-documents.js';
import { ParseDocumentsInputError, type ParseDocumentsInput } from '../../src/workflows/parse-documents-input.js';
import { parseDocuments, type ParseDocumentsResult } from '../../src/workflows/parse-documents.js';
import { makeDocx, makePdf } from '../helpers/documents.js';
import { startServiceProxy, startProxiedWorker, type ProxiedRequest, type ServiceProxy } from '../helpers/service-proxy.js';
import { startStack } from '../helpers/stack.js';

const TASK_QUEUE = 'parse-documents';

let stack: DevStack;
let proxy: ServiceProxy;
let worker: { stop(): Promise<void> };
let dir: string;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('parse-documents', () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webdata-parse-docs-'));
    stack = await startStack({ worker: false });
    proxy = await startServiceProxy(stack.service.url);
    worker = await startProxiedWorker(stack, proxy, TASK_QUEUE);
  });
  after(async () => {
    await worker?.stop();
    await proxy?.close();
    await stack?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function file(name: string, content: string | Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  /** The uploaded file's name in a multipart parse request. */
  function uploaded(req: ProxiedRequest): string | undefined {
    if (req.method !== 'POST' || req.path !== '/v2/parse') return undefined;
    return /filename="([^"]+)"/.exec(req.body.toString('latin1'))?.[1];
  }

  let counter = 0;
  async function run(input: ParseDocumentsInput): Promise<{ id: string; result: ParseDocumentsResult }> {
    const id = `parse-${Date.now()}-${++counter}`;
    const handle = await startParseDocuments(stack.temporal.client, input, { taskQueue: TASK_QUEUE, workflowId: id });
    return { id, result: await handle.result() };
  }

  async function storedDocs(runId: string): Promise<Map<string, { kind: string; markdown?: string; jobId: string }>> {
    const docs = new Map<string, { kind: string; markdown?: string; jobId: string }>();
    for await (const doc of stack.store.readDocuments(runId)) docs.set(doc.url, doc);
    return docs;
  }

  describe('parseDocuments', () => {
    test('parses PDF, DOCX, HTML and text into the store; a transient failure is retried; files that keep failing are recorded as failures and the rest go on', async () => {
      const pdf = await file('report.pdf', await makePdf());
      const docx = await file('notes.docx', makeDocx());
      const html = await file('page.html', '<html><head><title>Docs Home</title></head><body><h1>Welcome</h1><p>Read the <a href="https://example.com/guide">guide</a>.</p></body></html>');
      const text = await file('readme.txt', 'plain words about the project\n');
      const broken = await file('broken.pdf', '%PDF-1.4 broken');
      const missing = join(dir, 'missing.txt');
      const flaky = await file('flaky.txt', 'second attempt wins\n');
      const down = await file('down.txt', 'never reaches the service\n');
      // flaky.txt: the first upload answers 503, the retry goes through; down.txt: always 503.
      let flakyAttempts = 0;
      let downAttempts = 0;
      proxy.intercept = (req) => {
        const name = uploaded(req);
        const unavailable = { status: 503, body: JSON.stringify({ success: false, error: 'Service Unavailable (test)' }) };
        if (name === 'flaky.txt' && ++flakyAttempts === 1) return Promise.resolve(unavailable);
        if (name === 'down.txt') {
          downAttempts += 1;
          return Promise.resolve(unavailable);
        }
        return undefined;
      };
      try {
        const { id, result } = await run({ files: [pdf, docx, html, text, broken, missing, flaky, down], maxAttempts: 3, concurrency: 2 });
        assert.equal(result.status, 'partial', JSON.stringify(result));
        assert.equal(result.total, 8);
        assert.equal(result.done, 5);
        assert.equal(result.failed, 3);
        assert.equal(result.skipped, 0);
        assert.equal(result.credits.spent, 5, 'one credit a parsed file');
        assert.equal(flakyAttempts, 2, 'flaky.txt was retried once');
        assert.equal(downAttempts, 3, 'down.txt had its 3 attempts');

        const docs = await storedDocs(id);
        assert.deepEqual([...docs.keys()].sort(), ['flaky.txt', 'notes.docx', 'page.html', 'readme.txt', 'report.pdf']);
        for (const doc of docs.values()) assert.equal(doc.kind, 'parse');
        assert.match(docs.get('report.pdf')?.markdown ?? '', /Revenue grew by twelve percent/);
        assert.equal(docs.get('report.pdf')?.jobId, `parse:${pdf}`);
        assert.match(docs.get('notes.docx')?.markdown ?? '', /^# Meeting Notes/m);
        assert.match(docs.get('page.html')?.markdown ?? '', /\[guide\]\(https:\/\/example\.com\/guide\)/);
        assert.equal(docs.get('readme.txt')?.markdown, 'plain words about the project');

        const failures = new Map<string, { error: string; code?: string }>();
        for await (const f of stack.store.readFailures(id)) failures.set(f.url, f);
        assert.deepEqual([...failures.keys()].sort(), [broken, down, missing].sort());
        assert.equal(failures.get(broken)?.code, 'INVALID_FILE');
        assert.match(failures.get(broken)?.error ?? '', /^validation: .*The PDF file could not be read/);
        assert.equal(failures.get(missing)?.code, 'FILE_NOT_READABLE');
        assert.match(failures.get(missing)?.error ?? '', /cannot read .*missing\.txt/);
        assert.match(failures.get(down)?.error ?? '', /^server: .*Service Unavailable \(test\)/);
        assert.deepEqual(result.failures.map((f) => f.path).sort(), [broken, down, missing].sort());
      } finally {
        proxy.intercept = undefined;
      }
    });

    test('a budget stops starting files when the next would pass it; the rest are skipped', async () => {
      const files = await Promise.all(['b1.txt', 'b2.txt', 'b3.txt', 'b4.txt'].map((n) => file(n, `file ${n}\n`)));
      const { id, result } = await run({ files, budget: { credits: 2 }, concurrency: 1 });
      assert.equal(result.status, 'partial');
      assert.equal(result.done, 2);
      assert.equal(result.skipped, 2);
      assert.equal(result.failed, 0);
      assert.deepEqual(result.credits, { budget: 2, spent: 2, events: [result.reason] });
      assert.match(result.reason ?? '', new RegExp(`^budget: stopped before files\\.2 \\(.*b3\\.txt\\): 2 of 2 credits spent, a file costs 1$`));
      assert.deepEqual([...(await storedDocs(id)).keys()], ['b1.txt', 'b2.txt']);
      const uploads = proxy.requests.map(uploaded).filter((n) => n !== undefined && /^b\d\.txt$/.test(n));
      assert.deepEqual(uploads, ['b1.txt', 'b2.txt'], 'no upload past the budget');
    });

    test('the progress query mid-run: files done, running, total and credits', async () => {
      const files = await Promise.all(['p1.txt', 'p2.txt', 'p3-held.txt', 'p4.txt'].map((n) => file(n, `file ${n}\n`)));
      let release: () => void = () => {};
      const released = new Promise<void>((r) => { release = r; });
      let arrived: () => void = () => {};
      const held = new Promise<void>((r) => { arrived = r; });
      proxy.intercept = async (req) => {
        if (uploaded(req) !== 'p3-held.txt') return undefined;
        arrived();
        await released;
        return undefined;
      };
      try {
        const id = `parse-progress-${Date.now()}`;
        const handle = await startParseDocuments(stack.temporal.client, { files, concurrency: 1, budget: { credits: 10 } }, { taskQueue: TASK_QUEUE, workflowId: id });
        // The third file is at the service (held there): the two before it are done.
        await held;
        const progress = await getParseProgress(stack.temporal.client, id);
        assert.equal(progress.status, 'running');
        assert.equal(progress.total, 4);
        assert.equal(progress.done, 2);
        assert.equal(progress.running, 1);
        assert.equal(progress.failed, 0);
        assert.equal(progress.skipped, 0);
        assert.deepEqual(progress.credits, { budget: 10, spent: 2, events: [] });
        release();
        const result = await handle.result();
        assert.equal(result.status, 'completed');
        assert.equal(result.done, 4);
        const after = await getParseProgress(stack.temporal.client, id);
        assert.equal(after.status, 'completed');
        assert.equal(after.done, 4);
      } finally {
        release();
        proxy.intercept = undefined;
      }
    });

    test('a long list continues as new every filesPerRun files and keeps its counts', async () => {
      const files = await Promise.all(['c1.txt', 'c2.txt', 'c3.txt', 'c4.txt', 'c5.txt'].map((n) => file(n, `file ${n}\n`)));
      const { id, result } = await run({ files, filesPerRun: 2, runId: `parse-can-${Date.now()}` });
      assert.equal(result.status, 'completed');
      assert.equal(result.done, 5);
      assert.equal(result.continuedAsNew, 2);
      assert.equal(result.credits.spent, 5);
      assert.notEqual(result.runId, id, 'the store run is input.runId');
      assert.equal((await storedDocs(result.runId)).size, 5);
    });

    test('bad input fails before any work, naming the field and the rule', async () => {
      await assert.rejects(
        startParseDocuments(stack.temporal.client, { files: ['/ok.txt', 42 as unknown as string] }, { taskQueue: TASK_QUEUE }),
        (err: unknown) => err instanceof ParseDocumentsInputError && /files\.1: must be an absolute path \(a string\)/.test(err.message),
      );
      // Past the client (started directly): the workflow refuses it at once, nothing scheduled.
      const handle = await stack.temporal.client.workflow.start(parseDocuments, { taskQueue: TASK_QUEUE, workflowId: `parse-bad-${Date.now()}`, args: [{ files: [] }] });
      await assert.rejects(handle.result(), (err: unknown) => {
        assert.ok(err instanceof WorkflowFailedError);
        const cause = err.cause as { type?: string; message?: string };
        assert.equal(cause.type, 'validation');
        assert.match(cause.message ?? '', /invalid parseDocuments input: files: must have at least 1 item/);
        return true;
      });
      const history = await handle.fetchHistory();
      assert.equal((history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).length, 0);
    });
  });
});
