// `webdata monitor` as a user runs it (bin/webdata.js in a child process) against the local
// service, and against its open-source imitation, where the routes do not exist.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';
import { startModelServer, useModel, type Chat } from '../helpers/openai-model.js';
import { runCliProcess } from '../helpers/cli.js';

const team = { id: 'a', apiKeys: ['key-a'], credits: 100_000, rateLimits: {}, concurrency: 4, maxBrowserSessions: 1, features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] } };
let service: LocalService;
let oss: LocalService;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('monitor', () => {
  before(async () => {
    service = await startLocalService({ teams: [team], site: { pages: 20, searchIndex: false } });
    oss = await startLocalService({ teams: [team], site: false, config: { imitate: 'firecrawl-oss' } });
  });
  after(async () => {
    await service.close();
    await oss.close();
  });

  function webdata(args: string[], apiUrl: string) {
    // The monitors watch the demo site on 127.0.0.1: allowed by host:port, as a user exports it.
    const allow = service.siteUrl ? { WEBDATA_ALLOW_PRIVATE_ADDRESSES: new URL(service.siteUrl).host } : {};
    return runCliProcess(args, { env: { WEBDATA_API_URL: apiUrl, WEBDATA_API_KEY: 'key-a', ...allow } });
  }

  test('create, run --wait, checks, list and delete a monitor', async () => {
    const created = await webdata(['monitor', 'create', 'about page', `${service.siteUrl}/about`, `${service.siteUrl}/docs`, '--every', 'every 6 hours', '--json'], service.url);
    assert.equal(created.code, 0, created.err);
    const monitor = JSON.parse(created.out) as { id: string; schedule: { cron: string } };
    assert.equal(monitor.schedule.cron, '0 */6 * * *');

    const run = await webdata(['monitor', 'run', monitor.id, '--wait'], service.url);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /: completed · 2 pages: 2 new · 0 changed · 0 same · 0 removed · 0 error · 2 credits/);

    const checks = await webdata(['monitor', 'checks', monitor.id, '--json'], service.url);
    const list = JSON.parse(checks.out) as Array<{ id: string; status: string }>;
    assert.equal(list.length, 1);
    const pages = await webdata(['monitor', 'checks', monitor.id, '--check', list[0].id], service.url);
    assert.match(pages.out, /new\s+http:\/\/127\.0\.0\.1:\d+\/about/);

    const listed = await webdata(['monitor', 'list'], service.url);
    assert.match(listed.out, new RegExp(`${monitor.id}\\s+active\\s+0 \\*/6 \\* \\* \\*\\s+about page`));
    assert.equal((await webdata(['monitor', 'delete', monitor.id], service.url)).code, 0);
    assert.match((await webdata(['monitor', 'list'], service.url)).out, /no monitors/);
  });

  test('bad flags are one line with exit 2; a server without monitor routes is one line pointing at schedules', async () => {
    const bad = await webdata(['monitor', 'create', 'x', 'http://127.0.0.1:9/'], service.url);
    assert.equal(bad.code, 2);
    assert.match(bad.err.trim(), /^webdata monitor: monitor create: exactly one of --every TEXT .* or --cron EXPR is required$/);
    const missing = await webdata(['monitor', 'list'], oss.url);
    assert.equal(missing.code, 1);
    assert.match(missing.err.trim(), /^webdata monitor: http:\/\/127\.0\.0\.1:\d+ has no monitor routes \(the open-source server has none\): use `webdata schedule` for recurring runs there$/);
  });

  test('--goal: the service\'s model judges each new page and `checks --check` prints the judgment; a goal over 2,000 characters is one line', async () => {
    const model = await startModelServer((chat: Chat) => {
      const url = /<(?:diff|page) url="([^"]*)">/.exec(chat.messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? '';
      return { meaningful: true, confidence: 'low', reason: `new page ${new URL(url).pathname}`, meaningfulChanges: [] };
    });
    const restore = useModel(model.url);
    try {
      const created = await webdata(['monitor', 'create', 'judged', `${service.siteUrl}/about`, '--every', 'daily', '--goal', 'Tell me about new pages', '--json'], service.url);
      assert.equal(created.code, 0, created.err);
      const id = (JSON.parse(created.out) as { id: string }).id;
      const run = await webdata(['monitor', 'run', id, '--wait', '--json'], service.url);
      assert.equal(run.code, 0, run.err);
      const check = (JSON.parse(run.out) as { id: string }).id;
      const pages = await webdata(['monitor', 'checks', id, '--check', check], service.url);
      assert.match(pages.out, /new\s+http:\/\/127\.0\.0\.1:\d+\/about\n\s+judged meaningful \(low\): new page \/about\n/);
      assert.equal(model.chats.length, 1);
    } finally {
      restore();
      await model.close();
    }
    const long = await webdata(['monitor', 'create', 'x', `${service.siteUrl}/about`, '--every', 'daily', '--goal', 'g'.repeat(2001)], service.url);
    assert.equal(long.code, 2);
    assert.match(long.err.trim(), /^webdata monitor: monitor body: goal: must have at most 2000 characters$/);
  });
});
