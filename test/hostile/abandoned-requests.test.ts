// Callers that hang up: a map whose client disconnects before the answer is not billed (its
// retry pays once), and the service keeps answering. A worker killed during POST /v2/map
// used to pay for the map twice (found by the chaos scenario 1).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startLocalService, type LocalService } from '../../packages/service/src/index.js';
import { silentLogger } from '../../packages/service/src/http/logger.js';

const KEY = 'hostile-abandon-key';
let service: LocalService;
const charges: Array<{ reason: string; credits: number }> = [];

before(async () => {
  service = await startLocalService({
    site: { pages: 1500, searchIndex: false },
    teams: [{
      id: 'abandon', apiKeys: [KEY], credits: 1000, rateLimits: {}, concurrency: 4, maxBrowserSessions: 1,
      features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
    }],
    logger: silentLogger,
  });
  const charge = service.ledger.charge.bind(service.ledger);
  service.ledger.charge = (entry) => {
    charges.push({ reason: entry.reason, credits: entry.credits });
    charge(entry);
  };
});

after(async () => {
  await service?.close();
});

const map = (signal?: AbortSignal) => request(`${service.url}/v2/map`, {
  method: 'POST',
  headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  // ignoreCache: every call reads the site again, so each takes long enough to hang up on.
  body: JSON.stringify({ url: `${service.siteUrl}/`, ignoreCache: true, limit: 100_000 }),
  signal,
});

test('a map abandoned by its caller is not billed; the retry is billed once', async () => {
  const started = Date.now();
  const full = await map();
  const fullMs = Date.now() - started;
  assert.equal(full.statusCode, 200);
  await full.body.dump();
  assert.equal(charges.filter((c) => c.reason === 'map').length, 1);

  // Hang up well before the map can finish (it took fullMs just now).
  const controller = new AbortController();
  setTimeout(() => controller.abort(), Math.max(20, Math.floor(fullMs / 5)));
  await assert.rejects(map(controller.signal));
  // Give the service the time to finish the work it was doing for nobody.
  await new Promise((r) => setTimeout(r, fullMs * 2 + 500));
  assert.equal(charges.filter((c) => c.reason === 'map').length, 1, `an abandoned map was billed: ${JSON.stringify(charges)}`);

  const retry = await map();
  assert.equal(retry.statusCode, 200);
  await retry.body.dump();
  assert.equal(charges.filter((c) => c.reason === 'map').length, 2);
});
