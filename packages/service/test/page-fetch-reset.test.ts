// A site resetting the socket of a GET (as when it closes a kept-alive socket just as a busy
// client reuses it): the page fetch sends the GET once more on a connection of its own, whether
// the reset comes before the answer or in the middle of its body. The site resets the first
// request of each path, so the reset happens every run, not by luck.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PageFetcher } from '../src/scrape/fetch.js';

let server: Server;
let base: string;
const requests = new Map<string, number>();
const ports: number[] = [];
let resets = 0;

// One describe, so that its hooks stay with its tests when the folder runs in one process (together.ts).
describe('page fetch reset', () => {
  before(async () => {
    server = createServer((req, res) => {
      const n = (requests.get(req.url ?? '') ?? 0) + 1;
      requests.set(req.url ?? '', n);
      ports.push(req.socket.remotePort ?? 0);
      const body = `<html><body>${'x'.repeat(200_000)}</body></html>`;
      if (n === 1 && req.url === '/before') {
        resets += 1;
        req.socket.destroy(); // no answer at all
        return;
      }
      if (n === 1 && req.url === '/during') {
        resets += 1;
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(body.length) });
        res.write(body.slice(0, 50_000), () => req.socket.destroy()); // half a body, then gone
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(body.length) });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const where of ['before', 'during'] as const) {
    test(`a socket reset ${where} the answer: the GET is sent once more, the page comes whole`, async () => {
      const fetcher = new PageFetcher({ allowNonLoopback: false, maxBodyBytes: 10 * 1024 * 1024, maxRedirects: 5 });
      const init = { headers: {}, signal: AbortSignal.timeout(60_000), skipTlsVerification: false };
      try {
        const resetsBefore = resets;
        const portsBefore = ports.length;
        const page = await fetcher.fetch(new URL(`${base}/${where}`), init);
        assert.equal(resets - resetsBefore, 1, 'the first GET was not reset');
        const [reset, retried] = ports.slice(portsBefore);
        assert.ok(retried !== undefined && retried !== reset, 'the GET was not sent again on another connection');
        assert.equal(page.status, 200);
        assert.equal(page.body.length, 200_000 + '<html><body></body></html>'.length);
      } finally {
        await fetcher.close();
      }
    });
  }
});
