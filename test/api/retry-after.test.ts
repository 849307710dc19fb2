import { test } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { parseRetryAfterHeader, parseRetryAfterText, retryAfterMs, WebDataApiError, WebDataClient } from '../../packages/client/src/index.js';

test('header: seconds, decimals, HTTP date, past date, garbage', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  assert.equal(parseRetryAfterHeader('25', now), 25_000);
  assert.equal(parseRetryAfterHeader(' 1.5 ', now), 1500);
  assert.equal(parseRetryAfterHeader('Tue, 01 Jan 2030 00:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfterHeader('Mon, 31 Dec 2029 23:00:00 GMT', now), 0);
  assert.equal(parseRetryAfterHeader('soon', now), undefined);
  assert.equal(parseRetryAfterHeader('', now), undefined);
  assert.equal(parseRetryAfterHeader(undefined, now), undefined);
});

test('message text in the forms seen', () => {
  assert.equal(parseRetryAfterText('Rate limit exceeded. Consumed (req/min): 11 ... retry after 25s, resets at Wed Jan 01 2030'), 25_000);
  assert.equal(parseRetryAfterText('please retry after 3 seconds'), 3000);
  assert.equal(parseRetryAfterText('Retry after 500ms'), 500);
  assert.equal(parseRetryAfterText('retry in 2 minutes'), 120_000);
  assert.equal(parseRetryAfterText('Rate limit exceeded'), undefined);
  assert.equal(parseRetryAfterText(undefined), undefined);
});

test('the header wins over the text', () => {
  assert.equal(retryAfterMs('2', 'retry after 25s'), 2000);
  assert.equal(retryAfterMs(undefined, 'retry after 25s'), 25_000);
  assert.equal(retryAfterMs('garbage', 'retry after 25s'), 25_000);
});

// The client holds every call of the route after a 429 with Retry-After, not only the one that got it: a
// worker's activities share one client (a job follower and a status poll read the same job).
const ID_A = '0190c0de-0000-7000-8000-00000000000a';
const ID_B = '0190c0de-0000-7000-8000-00000000000b';

/** A server whose first request (of any route) gets a 429 with `retryAfter`; see scriptedServer. */
async function limitedServer(retryAfter: string) {
  const site = await scriptedServer({ '*': { status: 429, retryAfter } });
  return { ...site, answeredAt: () => site.firstAnswered.get('*') ?? 0 };
}

test('after a 429 with Retry-After 1, the next call of the same client is sent only once it passed', async () => {
  const site = await limitedServer('1');
  const client = new WebDataClient({ apiKey: 'k', baseUrl: site.url });
  try {
    await assert.rejects(client.getCrawlStatus(ID_A), (e: unknown) => e instanceof WebDataApiError && e.kind === 'rate_limited' && e.retryAfterMs === 1000);
    const status = await client.getCrawlStatus(ID_B); // another reader: waits, then is sent
    assert.equal(status.status, 'scraping');
    assert.equal(site.arrivals.length, 2);
    assert.ok(site.arrivals[1].at - site.answeredAt() >= 1000, `sent ${site.arrivals[1].at - site.answeredAt()} ms after the 429`);
  } finally {
    await client.close();
    await site.close();
  }
});

test('a Retry-After longer than maxHoldMs fails the next call at once, unsent, with the time left', async () => {
  const site = await limitedServer('120');
  const client = new WebDataClient({ apiKey: 'k', baseUrl: site.url, maxHoldMs: 5_000 });
  try {
    await assert.rejects(client.getCrawlStatus(ID_A), (e: unknown) => e instanceof WebDataApiError && e.retryAfterMs === 120_000);
    await assert.rejects(client.getCrawlStatus(ID_B), (e: unknown) =>
      e instanceof WebDataApiError && e.kind === 'rate_limited' && e.code === 'RETRY_AFTER_PENDING' && e.retryable
      && e.retryAfterMs !== undefined && e.retryAfterMs > 100_000 && e.retryAfterMs <= 120_000);
    assert.equal(site.arrivals.length, 1, 'the held call reached the server');
  } finally {
    await client.close();
    await site.close();
  }
});

test('two readers of one job at once: the second is sent after the first got its 429, and waits out Retry-After', async () => {
  const site = await limitedServer('1');
  const client = new WebDataClient({ apiKey: 'k', baseUrl: site.url });
  try {
    const [first, second] = await Promise.allSettled([client.getCrawlStatus(ID_A), client.getCrawlStatus(ID_A, { skip: 100 })]);
    assert.equal(first.status, 'rejected');
    assert.equal(second.status, 'fulfilled');
    assert.equal(site.arrivals.length, 2);
    assert.ok(site.arrivals[1].at - site.answeredAt() >= 1000, `the second read arrived ${site.arrivals[1].at - site.answeredAt()} ms after the 429`);
  } finally {
    await client.close();
    await site.close();
  }
});

/**
 * A server that answers the first request of each scripted route (`METHOD /path`, or `*` for
 * the very first request whatever its route) as scripted, and everything else with success.
 * `firstAnswered`: when each scripted answer was fully written, per key.
 */
async function scriptedServer(answers: Record<string, { status: number; retryAfter?: string }>) {
  const arrivals: Array<{ method: string; path: string; at: number }> = [];
  const firstAnswered = new Map<string, number>();
  const server = createServer((req, res) => {
    const route = `${req.method} ${req.url?.split('?')[0] ?? ''}`;
    arrivals.push({ method: req.method ?? '', path: req.url ?? '', at: Date.now() });
    const key = arrivals.length === 1 && answers['*'] ? '*' : route;
    const scripted = answers[key];
    if (scripted && !firstAnswered.has(key)) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (scripted.retryAfter) headers['retry-after'] = scripted.retryAfter;
      res.writeHead(scripted.status, headers);
      res.end(JSON.stringify({ success: false, error: scripted.status === 429 ? 'Rate limit exceeded' : 'try later' }), () => firstAnswered.set(key, Date.now()));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (route.startsWith('POST /v2/map')) res.end(JSON.stringify({ success: true, links: [] }));
    else res.end(JSON.stringify({ success: true, status: 'scraping', total: 0, completed: 0, creditsUsed: 0, expiresAt: new Date().toISOString(), data: [] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, arrivals, firstAnswered, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// Rate limits are per endpoint: a 429 of one route says nothing of another's budget.
test('a 429 of the map holds the next map, not a status read of a crawl', async () => {
  const site = await scriptedServer({ 'POST /v2/map': { status: 429, retryAfter: '120' } });
  const client = new WebDataClient({ apiKey: 'k', baseUrl: site.url, maxHoldMs: 5_000 });
  try {
    await assert.rejects(client.map({ url: 'https://example.com/' }), (e: unknown) => e instanceof WebDataApiError && e.retryAfterMs === 120_000);
    const status = await client.getCrawlStatus(ID_A); // another route: sent at once
    assert.equal(status.status, 'scraping');
    await assert.rejects(client.map({ url: 'https://example.com/' }), (e: unknown) => e instanceof WebDataApiError && e.code === 'RETRY_AFTER_PENDING');
    assert.deepEqual(site.arrivals.map((a) => a.method + ' ' + a.path.split('?')[0]), ['POST /v2/map', `GET /v2/crawl/${ID_A}`]);
  } finally {
    await client.close();
    await site.close();
  }
});

test('a 503 with Retry-After holds every route', async () => {
  const site = await scriptedServer({ [`GET /v2/crawl/${ID_A}`]: { status: 503, retryAfter: '1' } });
  const client = new WebDataClient({ apiKey: 'k', baseUrl: site.url });
  try {
    await assert.rejects(client.getCrawlStatus(ID_A), (e: unknown) => e instanceof WebDataApiError && e.status === 503);
    await client.map({ url: 'https://example.com/' }); // another route: waits too
    const mapAt = site.arrivals[1]?.at ?? 0;
    const answeredAt = site.firstAnswered.get(`GET /v2/crawl/${ID_A}`) ?? Number.POSITIVE_INFINITY;
    assert.ok(mapAt - answeredAt >= 1000, `the map was sent ${mapAt - answeredAt} ms after the 503`);
  } finally {
    await client.close();
    await site.close();
  }
});
