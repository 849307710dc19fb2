// WebDataClient's monitor methods against a server without the routes (the local service
// imitating the open-source server): every call is a typed `not_available`, never a failure
// that looks like a missing monitor. Input errors are refused before anything is sent.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebDataApiError, WebDataClient } from 'webdata-client';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';

const team = { id: 'a', apiKeys: ['key-a'], credits: 1000, rateLimits: {}, concurrency: 2, maxBrowserSessions: 1, features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] } };
const ID = '0190b0a0-0000-7000-8000-000000000001';
let oss: LocalService;
let api: WebDataClient;

before(async () => {
  oss = await startLocalService({ teams: [team], site: false, config: { imitate: 'firecrawl-oss' } });
  api = new WebDataClient({ apiKey: 'key-a', baseUrl: oss.url });
});
after(async () => {
  await api.close();
  await oss.close();
});

test('every monitor call on the open-source imitation is not_available', async () => {
  // A target no one fetches (the imitation answers not_available): a public name, not loopback.
  const body = { name: 'n', schedule: { text: 'daily' }, targets: [{ type: 'scrape' as const, urls: ['https://site.example/'] }] };
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['createMonitor', () => api.createMonitor(body)],
    ['listMonitors', () => api.listMonitors()],
    ['getMonitor', () => api.getMonitor(ID)],
    ['updateMonitor', () => api.updateMonitor(ID, { status: 'paused' })],
    ['deleteMonitor', () => api.deleteMonitor(ID)],
    ['runMonitor', () => api.runMonitor(ID)],
    ['listMonitorChecks', () => api.listMonitorChecks(ID)],
    ['getMonitorCheck', () => api.getMonitorCheck(ID, ID)],
  ];
  for (const [name, fn] of calls) {
    await assert.rejects(fn, (err: unknown) => err instanceof WebDataApiError && err.kind === 'not_available' && err.retryable === false && /not available on this service/.test(err.message), name);
  }
});

test('bad monitor input is refused locally, naming the field', async () => {
  await assert.rejects(() => api.createMonitor({ name: '', schedule: { text: 'daily' }, targets: [{ type: 'scrape', urls: ['https://site.example/'] }] }), /monitor body: name/);
  await assert.rejects(() => api.updateMonitor(ID, {}), /monitor update body: must change at least one field/);
  await assert.rejects(() => api.getMonitor('not-a-uuid'), /monitor id/);
  await assert.rejects(() => api.listMonitors({ limit: 101 }), /monitor list query: limit/);
});
