// The pipeline's agent stage on the real stack: Temporal dev server, a worker, the local service
// (its agent runs on a scripted OpenAI-compatible endpoint started here) and the demo site. The
// worker's client goes through a recording proxy, so the test sees the agent request exactly as
// the service received it (the clamped maxCredits).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DevStack } from '../../src/cli/dev-stack.js';
import { cancelPipeline, getProgress, startPipeline } from '../../src/client/pipeline.js';
import type { PipelineInput } from '../../src/workflows/input.js';
import type { PipelineResult } from '../../src/workflows/state.js';
import { recordHistory } from '../helpers/histories.js';
import { startServiceProxy, startProxiedWorker, type ServiceProxy } from '../helpers/service-proxy.js';
import { startStack } from '../helpers/stack.js';

interface Chat { messages: Array<{ role: string; content: string }> }

const TASK_QUEUE = 'agent-stage';
const ANSWER = { topic: 'docs', verdict: 'the pages were read' };

let stack: DevStack;
let site: string;
let proxy: ServiceProxy;
let worker: { stop(): Promise<void> };
let model: Server;
let modelUrl = '';
const chats: Chat[] = [];
/** While set, the model keeps its answer until this resolves (a long-running agent job). */
let hold: Promise<void> | undefined;
let modelCalled: () => void = () => {};
const savedEnv = { base: process.env.LLM_BASE_URL, model: process.env.LLM_MODEL };

async function answerChat(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const chat = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Chat;
  chats.push(chat);
  modelCalled();
  if (hold) await hold;
  const read = (chat.messages[1]?.content.match(/<page url="/g) ?? []).length;
  const content = JSON.stringify({ data: { ...ANSWER, pagesRead: read } });
  res.writeHead(200, { 'content-type': 'application/json' });
  // 1500 tokens: one model call costs 2 credits.
  res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage: { total_tokens: 1500 } }));
}

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('agent-stage', () => {
  before(async () => {
    model = createServer((req, res) => {
      answerChat(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
    modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    // The local service runs in this process and reads its model settings per request.
    process.env.LLM_BASE_URL = modelUrl;
    process.env.LLM_MODEL = 'scripted';
    stack = await startStack({ worker: false });
    site = stack.service.siteUrl as string;
    proxy = await startServiceProxy(stack.service.url);
    worker = await startProxiedWorker(stack, proxy, TASK_QUEUE);
  });
  after(async () => {
    await worker?.stop();
    await proxy?.close();
    await stack?.close();
    model?.closeAllConnections();
    await new Promise((r) => model?.close(r));
    if (savedEnv.base === undefined) delete process.env.LLM_BASE_URL;
    else process.env.LLM_BASE_URL = savedEnv.base;
    if (savedEnv.model === undefined) delete process.env.LLM_MODEL;
    else process.env.LLM_MODEL = savedEnv.model;
  });

  let counter = 0;
  async function run(input: PipelineInput): Promise<{ id: string; result: PipelineResult }> {
    const id = `agent-${Date.now()}-${++counter}`;
    const handle = await startPipeline(stack.temporal.client, input, { taskQueue: TASK_QUEUE, workflowId: id });
    return { id, result: await handle.result() };
  }

  const agentStarts = () => proxy.bodies('POST', '/v2/agent') as Array<Record<string, unknown>>;
  const polling = { minIntervalMs: 200, maxIntervalMs: 1_000 };
  /** Only the agent stage runs. */
  const agentOnly = { map: false, select: false, crawl: false, batch: false, interact: false };

  /** How many agent status reads (getAgent activities) of the run have completed. */
  async function completedPolls(handle: { fetchHistory(): Promise<{ events?: Array<{ eventId?: unknown; activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null; activityTaskCompletedEventAttributes?: { scheduledEventId?: unknown } | null }> | null }> }): Promise<number> {
    const events = (await handle.fetchHistory()).events ?? [];
    const polls = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'getAgent').map((e) => String(e.eventId)));
    return events.filter((e) => polls.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId))).length;
  }

  describe('agent stage', () => {
    test('after the crawl: maxCredits clamped to what the budget left (as the service received it), the answer stored as kind agent, its credits counted', async () => {
      const sent = agentStarts().length;
      chats.length = 0;
      const { id, result } = await run({
        url: `${site}/docs`,
        stages: { map: false, select: false, batch: false, interact: false },
        crawl: { limit: 2 },
        agent: { prompt: 'What do these docs pages say?', match: '/docs', maxUrls: 2, maxCredits: 50 },
        budget: { credits: 10 },
        polling,
      });
      const { crawl, agent } = result.stages;
      assert.equal(result.status, 'completed', JSON.stringify(result.stages));
      assert.equal(crawl?.status, 'completed');
      const crawlCredits = result.credits.byStage.crawl ?? 0;
      assert.ok(crawlCredits > 0 && crawlCredits < 10, `crawl spent ${crawlCredits}`);

      // The request as the service received it: the budget's remainder, not the configured 50.
      const bodies = agentStarts().slice(sent);
      assert.equal(bodies.length, 1, 'one agent job started');
      assert.equal(bodies[0].maxCredits, 10 - crawlCredits);
      assert.ok(result.credits.events.includes(`agent maxCredits clamped from 50 to ${10 - crawlCredits} (budget)`), result.credits.events.join('; '));
      // Its URLs are pages the crawl stored.
      const crawled = new Set<string>();
      for await (const doc of stack.store.readDocuments(id, { jobId: crawl?.jobId })) crawled.add(doc.url);
      const urls = bodies[0].urls as string[];
      assert.equal(urls.length, 2);
      for (const url of urls) assert.ok(crawled.has(url), `${url} was not stored by the crawl`);

      assert.equal(agent?.status, 'completed', JSON.stringify(agent));
      assert.equal(agent?.urls, 2);
      assert.equal(agent?.documents, 1);
      assert.equal(chats.length, 1);
      const job = await stack.api.getAgent(agent?.jobId as string);
      assert.equal(job.status, 'completed');
      assert.equal(agent?.credits, job.creditsUsed, 'the stage counts what the job used');
      assert.equal(job.creditsUsed, 2 + 2, 'two pages and one model call');
      assert.equal(result.credits.byStage.agent, job.creditsUsed);
      assert.equal(result.credits.spent, crawlCredits + job.creditsUsed);
      assert.ok(result.credits.spent <= 10);
      assert.equal(result.jobs['agent#1'], agent?.jobId);

      const stored = [];
      for await (const doc of stack.store.readDocuments(id, { jobId: `agent:${agent?.jobId}` })) stored.push(doc);
      assert.equal(stored.length, 1);
      assert.equal(stored[0].kind, 'agent');
      assert.deepEqual(stored[0].json, { ...ANSWER, pagesRead: 2 });
      assert.deepEqual(agent?.ref, { store: stack.store.kind, runId: id, jobId: `agent:${agent?.jobId}` });
    });

    test('without a budget the configured maxCredits is sent as it is; without agent input the stage is skipped, not configured', async () => {
      const sent = agentStarts().length;
      const { result } = await run({ url: `${site}/docs`, stages: agentOnly, agent: { prompt: 'Summarize', urls: [`${site}/docs`], maxCredits: 30 }, polling });
      assert.equal(result.stages.agent?.status, 'completed', JSON.stringify(result.stages.agent));
      assert.deepEqual(agentStarts().slice(sent).map((b) => b.maxCredits), [30]);
      assert.deepEqual(result.credits.events, []);

      const none = await run({ url: `${site}/docs`, stages: agentOnly });
      assert.equal(none.result.status, 'completed');
      assert.equal(none.result.stages.agent?.status, 'skipped');
      assert.equal(none.result.stages.agent?.reason, 'not configured');
      const off = await run({ url: `${site}/docs`, stages: { ...agentOnly, agent: false }, agent: { prompt: 'x' } });
      assert.equal(off.result.stages.agent?.reason, 'switched off');
      assert.equal(agentStarts().length, sent + 1, 'no agent job for either');
    });

    test('skipped for budget when the stages before it spent it all; no agent job started', async () => {
      const sent = agentStarts().length;
      const { result } = await run({
        url: `${site}/docs`,
        stages: { map: false, select: false, batch: false, interact: false },
        crawl: { limit: 2 },
        agent: { prompt: 'x', maxCredits: 5 },
        budget: { credits: 2 },
        polling,
      });
      assert.equal(result.stages.crawl?.credits, 2, JSON.stringify(result.stages.crawl));
      assert.equal(result.stages.agent?.status, 'skipped');
      assert.match(result.stages.agent?.reason ?? '', /^budget: no credits left for the agent/);
      assert.ok(result.credits.events.includes('agent skipped: 0 credits left (budget)'), result.credits.events.join('; '));
      assert.equal(result.status, 'completed');
      assert.equal(agentStarts().length, sent);
    });

    test('a service without a model (503 AI_NOT_CONFIGURED): the stage fails and says why', async () => {
      delete process.env.LLM_BASE_URL;
      try {
        const { result } = await run({ url: `${site}/docs`, stages: agentOnly, agent: { prompt: 'x', urls: [`${site}/docs`] }, polling });
        assert.equal(result.stages.agent?.status, 'failed');
        assert.match(result.stages.agent?.reason ?? '', /^server: .*needs an AI model/);
        assert.equal(result.status, 'failed');
      } finally {
        process.env.LLM_BASE_URL = modelUrl;
      }
    });

    test('a long agent job is polled with backoff until it ends', async () => {
      let release: () => void = () => {};
      hold = new Promise((r) => { release = r; });
      const called = new Promise<void>((r) => { modelCalled = r; });
      try {
        const id = `agent-polled-${Date.now()}`;
        const handle = await startPipeline(stack.temporal.client, { url: `${site}/docs`, stages: agentOnly, agent: { prompt: 'x', urls: [`${site}/docs`] }, polling }, { taskQueue: TASK_QUEUE, workflowId: id });
        await called;
        // Two status reads answered `processing` (the model is held): the stage waited between them.
        for (let i = 0; i < 600 && (await completedPolls(handle)) < 2; i++) await new Promise((r) => setTimeout(r, 200));
        assert.ok((await completedPolls(handle)) >= 2, 'polled twice while the job ran');
        release();
        const result = await handle.result();
        assert.equal(result.stages.agent?.status, 'completed', JSON.stringify(result.stages.agent));
        // Replayed by test/replay (RECORD_HISTORIES=1 records it): an agent job's start and its polled wait.
        await recordHistory(stack.temporal.client, id, 'agent-polled');
      } finally {
        hold = undefined;
        modelCalled = () => {};
        release();
      }
    });

    test('with a webhook receiver: the agent job subscribes to its end only, and agent.completed wakes the wait', async () => {
      let release: () => void = () => {};
      hold = new Promise((r) => { release = r; });
      const called = new Promise<void>((r) => { modelCalled = r; });
      const sent = agentStarts().length;
      try {
        const id = `agent-webhook-${Date.now()}`;
        // Polls 5 minutes apart: after the first poll, only the webhook can end the wait in time.
        const handle = await startPipeline(stack.temporal.client, {
          url: `${site}/docs`, stages: agentOnly, agent: { prompt: 'x', urls: [`${site}/docs`] },
          polling: { minIntervalMs: 300_000, maxIntervalMs: 300_000 }, webhookUrl: stack.webhook.url,
        }, { taskQueue: TASK_QUEUE, workflowId: id });
        await called;
        // The first status read answered `processing` (the model is held): the wait has begun.
        for (let i = 0; i < 600 && (await completedPolls(handle)) < 1; i++) await new Promise((r) => setTimeout(r, 200));
        assert.ok((await completedPolls(handle)) >= 1, 'the agent stage polled once');
        release();
        const result = await handle.result();
        assert.equal(result.stages.agent?.status, 'completed', JSON.stringify(result.stages.agent));

        const body = agentStarts().slice(sent)[0] as { webhook?: { url: string; events: string[]; metadata: Record<string, string> } };
        assert.deepEqual(body.webhook?.events, ['completed', 'failed', 'cancelled']);
        assert.equal(body.webhook?.url, stack.webhook.url);
        assert.equal(body.webhook?.metadata.workflowId, id);
        const signals = ((await handle.fetchHistory()).events ?? [])
          .filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'jobEvent')
          .map((e) => JSON.parse(Buffer.from(e.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0]?.data ?? []).toString('utf8')) as { type: string; jobId: string });
        assert.deepEqual(signals.map((x) => [x.type, x.jobId]), [['agent.completed', result.stages.agent?.jobId]]);
      } finally {
        hold = undefined;
        modelCalled = () => {};
        release();
      }
    });

    test('cancelling the run while the agent works cancels its job', async () => {
      let release: () => void = () => {};
      hold = new Promise((r) => { release = r; });
      const called = new Promise<void>((r) => { modelCalled = r; });
      try {
        const id = `agent-cancel-${Date.now()}`;
        const handle = await startPipeline(stack.temporal.client, { url: `${site}/docs`, stages: agentOnly, agent: { prompt: 'x', urls: [`${site}/docs`] }, polling }, { taskQueue: TASK_QUEUE, workflowId: id });
        // The job is running: the service called the model, which does not answer yet.
        await called;
        let jobId: string | undefined;
        for (let i = 0; i < 600 && !jobId; i++) {
          jobId = (await getProgress(stack.temporal.client, id)).stages.agent?.jobId;
          if (!jobId) await new Promise((r) => setTimeout(r, 200));
        }
        assert.ok(jobId, 'the progress names the agent job');
        await cancelPipeline(stack.temporal.client, id);
        await assert.rejects(handle.result(), /cancel/i);
        assert.equal((await stack.api.getAgent(jobId)).status, 'cancelled');
        const history = await handle.fetchHistory();
        const cancels = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'cancelAgent');
        assert.equal(cancels.length, 1);
      } finally {
        hold = undefined;
        modelCalled = () => {};
        release();
      }
    });
  });
});
