// The monitor's AI judge on the local service, against the deterministic loopback model: with a
// goal and a model, new and changed pages carry the model's judgment (same pages are not asked
// about), also in their monitor.page webhooks; a malformed answer leaves the page without one
// and is logged; judgeEnabled false, or no model configured, leaves every page without one.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startModelServer, useModel, type Chat, type ModelServer } from '../../../test/helpers/openai-model.js';
import { createServiceApp, type ServiceApp } from '../src/app.js';
import { REVISED_PATHS, startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import type { ServiceLogger } from '../src/http/logger.js';
import { listen, type ListeningServer } from '../src/http/server.js';
import { createHttpScrapeEngine } from '../src/scrape/index.js';
import { until } from './jobs-helpers.js';
import { call, team, type ApiAnswer } from './platform-helpers.js';

const GOAL = 'Tell me when the prices change';

/** The page a judge chat is about, and whether it was given a diff (a changed page) or the page (a new one). */
function judged(chat: Chat): { url: string; diff: boolean } {
  const user = chat.messages.find((m) => m.role === 'user')?.content ?? '';
  const m = /<(diff|page) url="([^"]*)">/.exec(user);
  return { url: m?.[2] ?? '', diff: m?.[1] === 'diff' };
}

/** A judgment derived from the request; `/about` gets an answer of another shape. */
function answer(chat: Chat): unknown {
  const user = chat.messages.find((m) => m.role === 'user')?.content ?? '';
  const { url, diff } = judged(chat);
  if (url.endsWith('/about')) return { meaningful: 'yes', confidence: 'certain' };
  const goal = /<goal>\n([\s\S]*?)\n<\/goal>/.exec(user)?.[1] ?? '';
  return {
    meaningful: diff,
    confidence: diff ? 'high' : 'low',
    reason: `${diff ? 'changed' : 'new'}: ${url} for "${goal}"`,
    meaningfulChanges: diff ? [{ type: 'changed', before: 'old', after: 'new', reason: 'the text changed' }] : [],
  };
}

type Page = { url: string; status: string } & Record<string, unknown>;

describe('monitor judgments from the configured model', () => {
  let app: ServiceApp;
  let server: ListeningServer;
  let site: DemoSite;
  let model: ModelServer;
  let restore: () => void;
  let receiver: Server;
  let hookUrl: string;
  const pageEvents: Array<{ id: string; page: Page }> = [];
  const warnings: string[] = [];
  const log: ServiceLogger = { info: () => {}, warn: (m) => { warnings.push(m); }, error: () => {} };
  let api: (method: string, path: string, body?: unknown) => Promise<ApiAnswer>;

  before(async () => {
    site = await startDemoSite({ port: 0, pages: 20, seed: 5 });
    model = await startModelServer(answer);
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; id: string; data: Page[] };
        if (body.type === 'monitor.page') pageEvents.push({ id: body.id, page: body.data[0] });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    restore = useModel(model.url);
    app = createServiceApp({ teams: [team('a', { credits: 100_000 })], scrapeEngine: createHttpScrapeEngine({ cache: false }), logger: log });
    server = await listen(app.listener, { port: 0 });
    api = (method, path, body) => call(server.url, method, path, { body });
  });

  after(async () => {
    restore();
    site.setRevision(0);
    await server.close();
    await app.close();
    await model.close();
    await site.close();
    await new Promise<void>((r) => receiver.close(() => r()));
  });

  const revised = () => `${site.url}${REVISED_PATHS[0]}`;
  const about = () => `${site.url}/about`;

  async function monitor(extra: Record<string, unknown>): Promise<string> {
    const created = await api('POST', '/v2/monitor', { name: 'judged', schedule: { text: 'daily' }, targets: [{ type: 'scrape', urls: [revised(), about()] }], ...extra });
    assert.equal(created.status, 200, created.text);
    return created.body.data.id as string;
  }

  async function check(id: string): Promise<Map<string, Page> & { checkId?: string }> {
    const run = await api('POST', `/v2/monitor/${id}/run`);
    assert.equal(run.status, 200, run.text);
    const done = await until('the check to finish', async () => {
      const r = await api('GET', `/v2/monitor/${id}/checks/${run.body.id}?limit=100`);
      return r.body?.data?.finishedAt ? r : undefined;
    });
    return Object.assign(new Map((done.body.data.pages as Page[]).map((p) => [p.url, p])), { checkId: run.body.id as string });
  }

  test('new and changed pages carry the model\'s judgment; same pages are not asked about; a malformed answer is logged, not kept', async () => {
    const id = await monitor({ goal: GOAL, webhook: { url: hookUrl, events: ['monitor.page'] } });
    const chatsBefore = model.chats.length;
    const one = await check(id);
    assert.equal(one.get(revised())?.status, 'new');
    assert.deepEqual(one.get(revised())?.judgment, { meaningful: false, confidence: 'low', reason: `new: ${revised()} for "${GOAL}"`, meaningfulChanges: [] });
    assert.equal(one.get(about())?.status, 'new');
    assert.equal('judgment' in (one.get(about()) ?? {}), false, 'an answer of another shape is no judgment');
    assert.ok(warnings.some((w) => w.includes(id) && w.includes(about())), warnings.join('\n'));
    assert.equal(model.chats.length - chatsBefore, 2, 'one question per new page');
    // The page's webhook is sent once it is judged: it carries the same judgment.
    const sent = await until('the monitor.page webhooks of the first check', async () => {
      const mine = pageEvents.filter((e) => e.id === one.checkId);
      return mine.length >= 2 ? mine : undefined;
    });
    assert.deepEqual(sent.find((e) => e.page.url === revised())?.page.judgment, one.get(revised())?.judgment);
    assert.equal('judgment' in (sent.find((e) => e.page.url === about())?.page ?? {}), false);

    site.setRevision(1);
    const asked = model.chats.length;
    const two = await check(id);
    site.setRevision(0);
    assert.equal(two.get(revised())?.status, 'changed');
    assert.deepEqual(two.get(revised())?.judgment, {
      meaningful: true,
      confidence: 'high',
      reason: `changed: ${revised()} for "${GOAL}"`,
      meaningfulChanges: [{ type: 'changed', before: 'old', after: 'new', reason: 'the text changed' }],
    });
    assert.equal(two.get(about())?.status, 'same');
    assert.equal('judgment' in (two.get(about()) ?? {}), false);
    assert.deepEqual(model.chats.slice(asked).map((c) => judged(c)), [{ url: revised(), diff: true }], 'only the changed page, with its diff');
  });

  test('judgeEnabled false: no page is judged, the model is not asked', async () => {
    const id = await monitor({ goal: GOAL, judgeEnabled: false });
    const asked = model.chats.length;
    const pages = await check(id);
    assert.equal(pages.size, 2);
    assert.ok([...pages.values()].every((p) => p.status === 'new' && !('judgment' in p)));
    assert.equal(model.chats.length, asked);
  });

  test('no model configured: a monitor with a goal gets no judgment', async () => {
    const id = await monitor({ goal: GOAL });
    const undo = useModel(undefined);
    try {
      const pages = await check(id);
      assert.equal(pages.size, 2);
      assert.ok([...pages.values()].every((p) => p.status === 'new' && !('judgment' in p)));
    } finally {
      undo();
    }
  });
});
