// Structured answers per page on the real stack (Temporal dev server, worker, local service with
// its demo site): a crawl asking for [markdown, json with a schema, summary] is answered by a
// deterministic OpenAI-compatible model on loopback; every stored page carries its own `json`
// and `summary`, and `webdata export --format jsonl` prints them. Without a model the crawl
// stage fails at once with the service's AI_NOT_CONFIGURED reason (not retried for minutes).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { StoredDocument } from '../../packages/storage/src/index.js';
import type { DevStack } from '../../src/cli/dev-stack.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import { startModelServer, useModel, type ModelServer } from '../helpers/openai-model.js';
import { runToEnd, startStack } from '../helpers/stack.js';

const BIN = 'bin/webdata.js';
const SCHEMA = { type: 'object', properties: { title: { type: 'string' }, url: { type: 'string' } }, required: ['title', 'url'] };
const FORMATS = ['markdown', { type: 'json', schema: SCHEMA }, 'summary'] as const;

let stack: DevStack;
let model: ModelServer;
let restoreEnv: () => void = () => {};

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('structured-formats', () => {
  before(async () => {
    model = await startModelServer();
    // The local service runs in this process and reads its model settings per request.
    restoreEnv = useModel(model.url);
    stack = await startStack();
  });
  after(async () => {
    await stack?.close();
    await model?.close();
    restoreEnv();
  });

  function crawlInput(site: string): PipelineInput {
    return {
      url: `${site}/docs`,
      stages: { map: false, select: false, batch: false, interact: false },
      crawl: { limit: 3, scrapeOptions: { formats: [...FORMATS] } },
    };
  }

  function exportJsonl(runId: string): Promise<{ code: number | null; out: string; err: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'export', runId, '--format', 'jsonl', '--store', stack.storeSpec], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
      child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out, err }));
    });
  }

  describe('structured formats', () => {
    test('a crawl with [markdown, json, summary]: each stored page has its own answers, and export prints them', async () => {
      const site = stack.service.siteUrl as string;
      const { id, result } = await runToEnd(stack, crawlInput(site));
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      const stored: StoredDocument[] = [];
      for await (const doc of stack.store.readDocuments(id)) stored.push(doc);
      assert.equal(stored.length, 3, stored.map((d) => d.url).join(' '));
      for (const doc of stored) {
        // The model's answers are derived from the page it was given: its URL and first heading.
        const title = /^#{1,6}\s+(.+)$/m.exec(doc.markdown ?? '')?.[1]?.trim();
        assert.ok(title, `${doc.url} has a heading`);
        assert.deepEqual(doc.json, { title, url: doc.metadata.sourceURL }, doc.url);
        assert.equal(doc.summary, `Summary of ${String(doc.metadata.sourceURL)}: ${title}`);
      }
      assert.ok(model.chats.length >= 6, `two model calls per page, got ${model.chats.length}`);

      const exported = await exportJsonl(id);
      assert.equal(exported.code, 0, exported.err);
      const lines = exported.out.trim().split('\n').map((l) => JSON.parse(l) as { url: string; json?: unknown; summary?: string; markdown: string });
      assert.deepEqual(lines.map((l) => l.url).sort(), stored.map((d) => d.url).sort());
      for (const line of lines) {
        const doc = stored.find((d) => d.url === line.url)!;
        assert.deepEqual(line.json, doc.json);
        assert.equal(line.summary, doc.summary);
        assert.equal(line.markdown, doc.markdown);
      }
    });

    test('a batch (mode batch) with [json by prompt, summary]: each stored page has its answers, no markdown asked', async () => {
      const site = stack.service.siteUrl as string;
      const { id, result } = await runToEnd(stack, {
        url: `${site}/docs`,
        mode: 'batch',
        select: { include: ['^/docs'], limit: 2 },
        stages: { interact: false },
        batch: { scrapeOptions: { formats: [{ type: 'json', prompt: 'The page title' }, 'summary'] } },
      });
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      assert.equal(result.stages.batch?.status, 'completed', JSON.stringify(result.stages.batch));
      const stored: StoredDocument[] = [];
      for await (const doc of stack.store.readDocuments(id)) if (doc.kind === 'batch') stored.push(doc);
      assert.equal(stored.length, 2, stored.map((d) => d.url).join(' '));
      for (const doc of stored) {
        const answer = doc.json as { title?: string; url?: string; words?: number };
        assert.equal(answer.url, doc.metadata.sourceURL, doc.url);
        assert.ok(typeof answer.title === 'string' && answer.title.length > 0, JSON.stringify(answer));
        assert.equal(doc.summary, `Summary of ${String(doc.metadata.sourceURL)}: ${answer.title}`);
        assert.equal(doc.markdown, undefined, 'markdown was not asked for');
      }
    });

    test('without a model: the crawl stage fails at once, saying AI_NOT_CONFIGURED and what to set', async () => {
      const site = stack.service.siteUrl as string;
      const undo = useModel(undefined);
      try {
        const { result } = await runToEnd(stack, crawlInput(site));
        const crawl = result.stages.crawl;
        assert.equal(crawl?.status, 'failed', JSON.stringify(result.stages));
        assert.match(crawl?.reason ?? '', /format needs an AI model: set LLM_BASE_URL/);
        assert.equal(crawl?.documents ?? 0, 0);
      } finally {
        undo();
      }
    });
  });
});
