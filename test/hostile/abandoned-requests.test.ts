// Callers that hang up: a map whose client disconnects before the answer is not billed (its
// retry pays once), and the service keeps answering. A worker killed during POST /v2/map
// used to pay for the map twice (found by the chaos scenario 1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { createServiceApp, type ServiceApp } from '../../packages/service/src/app.js';
import type { RouteResponse } from '../../packages/service/src/core/routes.js';
import { startDemoSite, type DemoSite } from '../../packages/service/src/demo-site/index.js';
import { listen, type ListeningServer } from '../../packages/service/src/http/server.js';
import { silentLogger } from '../../packages/service/src/http/logger.js';

const KEY = 'hostile-abandon-key';
let app: ServiceApp;
let server: ListeningServer;
let site: DemoSite;
let gate: Server;
let siteUrl: string;
const charges: Array<{ reason: string; credits: number }> = [];
/** One per call of the map handler, settled when the handler has returned (or thrown). */
const mapCalls: Array<Promise<RouteResponse | undefined>> = [];
/** Site requests held at the gate, and the gate's state: requests pass when it is open. */
let held = 0;
let openGate: () => void = () => {};
let gateOpen: Promise<void> = Promise.resolve();

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('abandoned-requests', () => {
  before(async () => {
    app = createServiceApp({
      teams: [{
        id: 'abandon', apiKeys: [KEY], credits: 1000, rateLimits: {}, concurrency: 4, maxBrowserSessions: 1,
        features: { ignoreRobotsTxt: false, zeroDataRetention: false, searchEnterprise: [] },
      }],
      logger: silentLogger,
    });
    const charge = app.ledger.charge.bind(app.ledger);
    app.ledger.charge = (entry) => {
      charges.push({ reason: entry.reason, credits: entry.credits });
      charge(entry);
    };
    // The map's handler, wrapped: the test sees each call arrive and finish, not a guess in ms.
    const route = app.router.list().find((r) => r.method === 'POST' && r.pattern === '/v2/map');
    assert.ok(route);
    const handler = route.handler;
    route.handler = (req) => {
      const call = Promise.resolve(handler(req));
      mapCalls.push(call.catch(() => undefined));
      return call;
    };
    server = await listen(app.listener, { host: '127.0.0.1', port: 0 });
    site = await startDemoSite({ pages: 1500, port: 0 });
    // The map reads the site through this gate, which holds every fetch while closed: a map
    // cannot finish before the test hangs up (however fast the machine), yet it has begun.
    gate = createServer((req: IncomingMessage, res: ServerResponse) => {
      held++;
      void gateOpen.then(() => {
        held--;
        if (res.destroyed) return;
        // Host header kept: the site's links point at the gate, so the whole walk goes through it.
        const upstream = httpRequest({ host: '127.0.0.1', port: site.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        res.on('close', () => upstream.destroy());
        upstream.end();
      });
    });
    await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
  });

  after(async () => {
    openGate();
    gate?.closeAllConnections();
    await new Promise((r) => (gate ? gate.close(r) : r(undefined)));
    await server?.close();
    await app?.close();
    await site?.close();
  });

  const map = (signal?: AbortSignal) => request(`${server.url}/v2/map`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    // ignoreCache: every call reads the site again, so each takes long enough to hang up on.
    body: JSON.stringify({ url: `${siteUrl}/`, ignoreCache: true, limit: 100_000 }),
    signal,
  });

  test('a map abandoned by its caller is not billed; the retry is billed once', async () => {
    const full = await map();
    assert.equal(full.statusCode, 200);
    await full.body.dump();
    assert.equal(charges.filter((c) => c.reason === 'map').length, 1);

    // Hang up while the handler is provably at work: it was called and its site fetches are
    // held at the gate, so it cannot have answered (or been billed) yet.
    gateOpen = new Promise((r) => { openGate = r; });
    const controller = new AbortController();
    const abandoned = map(controller.signal);
    await waitFor(() => mapCalls.length === 2 && held > 0, 60_000, 'the map to reach the handler and fetch the site');
    controller.abort();
    await assert.rejects(abandoned);
    // Let its fetches through: a handler that ignored the hang-up would now finish and bill.
    openGate();
    // Wait for the handler itself to return, then nothing may have been billed for it.
    await mapCalls[1];
    assert.equal(charges.filter((c) => c.reason === 'map').length, 1, `an abandoned map was billed: ${JSON.stringify(charges)}`);

    const retry = await map();
    assert.equal(retry.statusCode, 200);
    await retry.body.dump();
    assert.equal(charges.filter((c) => c.reason === 'map').length, 2);
  });

  /** Polls `check` every 10 ms until it returns true, at most `timeoutMs` (a generous deadline). */
  async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
});
