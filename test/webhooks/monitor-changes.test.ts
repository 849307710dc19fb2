// A service monitor's checks, delivered as signed `monitor.check.completed` webhooks, become runs
// of a change-report series that `webdata changes` reads like a schedule's: the local service
// and its demo site for real, the receiver with a fake Temporal client (no signal is involved).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { WebDataClient } from 'webdata-client';
import { createStore, type DocumentStore } from 'webdata-storage';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';
import { startModelServer, useModel, type Chat } from '../helpers/openai-model.js';
import { REVISED_PATHS } from '../../packages/service/src/demo-site/index.js';
import { monitorCheckRunId, recordMonitorCheck, seriesRuns } from '../../src/activities/index.js';
import { changesCommand } from '../../src/cli/commands/changes.js';
import { until } from '../../packages/service/test/jobs-helpers.js';
import { startWebhookServer, type WebhookDecision, type WebhookServer } from '../../src/webhooks/index.js';

const SECRET = 'monitor-webhook-secret-0123';
const DEADLINE_MS = 90_000;
const SERIES = 'docs-watch';
const noTemporal = { workflow: { getHandle: () => { throw new Error('no signal expected'); } } } as unknown as Client;

let service: LocalService;
let api: WebDataClient;
let store: DocumentStore;
let dir: string;
let rx: WebhookServer;
const decisions: WebhookDecision[] = [];

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('monitor-changes', () => {
  before(async () => {
    service = await startLocalService({
      teams: [{ id: 'a', apiKeys: ['key-a'], credits: 100_000, rateLimits: {}, concurrency: 4, maxBrowserSessions: 1, webhookSecret: SECRET, features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] } }],
      site: { pages: 40, searchIndex: false },
    });
    dir = mkdtempSync(join(tmpdir(), 'webdata-monitor-'));
    store = await createStore(dir);
    rx = await startWebhookServer({
      client: noTemporal,
      secret: SECRET,
      signalWaitMs: DEADLINE_MS,
      onDecision: (d) => decisions.push(d),
      onMonitorCheck: (check) => recordMonitorCheck({ client: api, store }, check),
    });
    // The monitor names the demo site and the receiver on 127.0.0.1: allowed by host:port.
    api = new WebDataClient({ apiKey: 'key-a', baseUrl: service.url, allowPrivateAddresses: [new URL(service.siteUrl!).host, new URL(rx.url).host] });
  });

  after(async () => {
    await rx.close();
    await api.close();
    await service.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function changesOutput(args: string[]): Promise<string> {
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => { lines.push(line); };
    try {
      assert.equal(await changesCommand([...args, '--store', dir]), 0);
    } finally {
      console.log = log;
    }
    return lines.join('\n');
  }

  async function changesJson(series = SERIES): Promise<Record<string, unknown>> {
    return JSON.parse(await changesOutput([series, '--json', '--diff'])) as Record<string, unknown>;
  }

  test('two checks around a site change are read back by `webdata changes` as a series', async () => {
    const site = service.siteUrl!;
    const created = await api.createMonitor({
      name: 'docs',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [...REVISED_PATHS.map((p) => `${site}${p}`), `${site}/about`] }],
      webhook: { url: rx.url, metadata: { series: SERIES }, events: ['monitor.check.completed'] },
    });
    const monitorId = created.data.id;

    const first = await api.runMonitor(monitorId);
    await until('the first check recorded', async () => ((await seriesRuns(store, SERIES)).length === 1 ? true : undefined), DEADLINE_MS);
    const one = await changesJson();
    assert.equal(one.runId, `monitor-check-${first.id}`);
    assert.deepEqual(one.counts, { new: 4, changed: 0, unchanged: 0, removed: 0 });

    service.site!.setRevision(1);
    const second = await api.runMonitor(monitorId);
    await until('the second check recorded', async () => ((await seriesRuns(store, SERIES)).length === 2 ? true : undefined), DEADLINE_MS);
    const two = await changesJson();
    assert.equal(two.runId, `monitor-check-${second.id}`);
    assert.equal(two.previousRunId, `monitor-check-${first.id}`);
    assert.deepEqual(two.counts, { new: 0, changed: 3, unchanged: 1, removed: 0 });
    assert.equal(two.judgments, undefined, 'a monitor without a goal is not judged');
    const changed = two.changed as Array<{ url: string; diff?: string }>;
    assert.deepEqual(changed.map((c) => c.url.replace(site, '')), [...REVISED_PATHS].sort());
    for (const c of changed) assert.match(c.diff ?? '', /^@@/m, `${c.url} carries the service's diff`);

    // A redelivery of a recorded check writes nothing again.
    const again = await recordMonitorCheck({ client: api, store }, { monitorId, checkId: second.id, series: SERIES });
    assert.equal(again.written, false);
    assert.equal((await seriesRuns(store, SERIES)).length, 2);
    assert.ok(decisions.filter((d) => d.type === 'monitor.check.completed').every((d) => d.outcome === 'recorded'), JSON.stringify(decisions));
  });

  test('a check judged by the service\'s model: each new page\'s judgment is kept in the series run', async () => {
    const site = service.siteUrl!;
    // The judgment names the page it was asked about, so a record shows it kept its own.
    const model = await startModelServer((chat: Chat) => {
      const url = /<(?:diff|page) url="([^"]*)">/.exec(chat.messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? '';
      return { meaningful: true, confidence: 'medium', reason: `judged ${url}`, meaningfulChanges: [{ type: 'added', before: null, after: url, reason: 'a new page' }] };
    });
    const restore = useModel(model.url);
    try {
      const series = 'judged-watch';
      const created = await api.createMonitor({
        name: 'judged',
        schedule: { text: 'daily' },
        targets: [{ type: 'scrape', urls: [`${site}/about`, `${site}/docs`] }],
        goal: 'Tell me about new pages',
        webhook: { url: rx.url, metadata: { series }, events: ['monitor.check.completed'] },
      });
      const check = await api.runMonitor(created.data.id);
      await until('the judged check recorded', async () => ((await seriesRuns(store, series)).length === 1 ? true : undefined), DEADLINE_MS);
      const records: Array<{ url: string; judgment?: unknown }> = [];
      for await (const d of store.readDocuments(monitorCheckRunId(check.id))) records.push(d as { url: string; judgment?: unknown });
      assert.equal(records.length, 2);
      for (const r of records) {
        assert.deepEqual(r.judgment, { meaningful: true, confidence: 'medium', reason: `judged ${r.url}`, meaningfulChanges: [{ type: 'added', before: null, after: r.url, reason: 'a new page' }] }, r.url);
      }
      // `webdata changes` shows them: in --json, and as one line per page in the text.
      const json = await changesJson(series);
      assert.deepEqual(json.judgments, [`${site}/about`, `${site}/docs`].map((url) => ({ url, meaningful: true, confidence: 'medium', reason: `judged ${url}` })));
      const text = await changesOutput([series]);
      assert.ok(text.includes(`judged (by the monitor's model):\n  ${site}/about: meaningful (medium): judged ${site}/about\n  ${site}/docs: meaningful (medium): judged ${site}/docs`), text);
    } finally {
      restore();
      await model.close();
    }
  });
});
