// The robots check against local HTTP sites, one origin per robots.txt behaviour: allow all,
// disallow a path (per agent group), 404, 5xx, a timeout and a closed port; fetched once per
// origin per run; and the collectors dropping documents robots.txt disallows.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { WebDataClient } from '../../packages/client/src/client.js';
import { createActivities } from '../../src/activities/index.js';
import { ROBOTS_UNREACHABLE_ATTEMPTS } from '../../src/activities/robots.js';
import { FilesystemStore } from '../../packages/storage/src/index.js';
import { FakeServer } from '../api/fake-server.js';

const JOB = '0190a7a0-0000-7000-8000-0000000000f1';

interface Site {
  origin: string;
  robotsRequests: number;
  agents: string[];
  server: Server;
}

/** A site whose /robots.txt answers `robots()`; every other path is a page. */
async function startSite(robots: () => { status: number; body?: string; hang?: boolean }): Promise<Site> {
  const site = { origin: '', robotsRequests: 0, agents: [] as string[] } as Site;
  site.server = createServer((req, res) => {
    if (req.url === '/robots.txt') {
      site.robotsRequests += 1;
      site.agents.push(String(req.headers['user-agent']));
      const answer = robots();
      if (answer.hang) return; // never answers: the fetch times out
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
  });
  await new Promise<void>((r) => site.server.listen(0, '127.0.0.1', r));
  site.origin = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
  return site;
}

const RULES = [
  'User-agent: *',
  'Disallow: /private/',
  '',
  'User-agent: NosyBot',
  'Disallow: /shop',
  '',
].join('\n');

let allowAll: Site;
let disallow: Site;
let missing: Site;
let broken: Site;
let hanging: Site;
let closedOrigin: string;
let api: FakeServer;
let dir: string;
let store: FilesystemStore;
let client: WebDataClient;
let acts: ReturnType<typeof createActivities>;
let shortDeadline: ReturnType<typeof createActivities>;
let runs = 0;

before(async () => {
  allowAll = await startSite(() => ({ status: 200, body: 'User-agent: *\nAllow: /\n' }));
  disallow = await startSite(() => ({ status: 200, body: RULES }));
  missing = await startSite(() => ({ status: 404, body: 'not found' }));
  broken = await startSite(() => ({ status: 503, body: 'down' }));
  hanging = await startSite(() => ({ status: 200, hang: true }));
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedOrigin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((r) => closed.close(() => r()));
  api = await new FakeServer().start();
  dir = mkdtempSync(join(tmpdir(), 'wd-robots-'));
  store = new FilesystemStore({ root: dir });
  client = new WebDataClient({ apiKey: 'wd-test-secret-key-0123456789', baseUrl: api.base });
  // Sites that answer get a generous deadline (a loaded machine can take seconds); only the
  // site that never answers is read with a short one, and that timeout fires by construction.
  // The worker's robots.txt fetches reach these sites on 127.0.0.1 by their host:port only.
  const allowPrivateAddresses = [allowAll, disallow, missing, broken, hanging].map((s) => new URL(s.origin).host).concat(new URL(closedOrigin).host);
  acts = createActivities({ client, store, robotsTimeoutMs: 30_000, allowPrivateAddresses });
  shortDeadline = createActivities({ client, store, robotsTimeoutMs: 300, allowPrivateAddresses });
});

after(async () => {
  await client.close();
  await store.close();
  await api.stop();
  for (const site of [allowAll, disallow, missing, broken, hanging]) {
    site.server.closeAllConnections();
    await new Promise<void>((r) => site.server.close(() => r()));
  }
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  for (const site of [allowAll, disallow, missing, broken, hanging]) {
    site.robotsRequests = 0;
    site.agents = [];
  }
  api.reset();
});

const quiet = new DefaultLogger('ERROR');
const env = (attempt = 1) => new MockActivityEnvironment({ workflowExecution: { workflowId: 'wf-robots', runId: 'r1' }, attempt } as never, { logger: quiet });

/** Runs an activity in a mock context (attempt 1 unless given), keeping its argument and result types. */
function call<I, R>(fn: (input: I) => Promise<R>, input: I, attempt = 1): Promise<R> {
  return env(attempt).run(fn as (input: unknown) => Promise<R>, input) as Promise<R>;
}

async function listOf(runId: string, list: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const link of store.readLinks(runId, list)) urls.push(link.url);
  return urls;
}

/** Puts `urls` in a fresh run's `from` list and filters it. */
async function filter(urls: string[], extra: { userAgent?: string; runId?: string; attempt?: number; with?: typeof acts } = {}) {
  const runId = extra.runId ?? `robots-${++runs}`;
  await store.appendLinks(runId, 'from', urls.map((url) => ({ url })));
  const result = await call((extra.with ?? acts).filterRobots, { runId, fromList: 'from', toList: 'allowed', userAgent: extra.userAgent }, extra.attempt);
  return { runId, result, allowed: await listOf(runId, 'allowed'), skipped: await listOf(runId, 'allowed.robots') };
}

describe('filterRobots', () => {
  test('robots.txt allowing everything keeps every URL', async () => {
    const urls = [`${allowAll.origin}/`, `${allowAll.origin}/private/a`, `${allowAll.origin}/shop/1`];
    const { result, allowed, skipped } = await filter(urls);
    assert.deepEqual(allowed, urls);
    assert.deepEqual(skipped, []);
    assert.equal(result.count, 3);
    assert.equal(result.skipped, 0);
    assert.equal(result.userAgent, 'WebDataBot');
  });

  test('a disallowed path is left out for the default agent (the `*` group), counted and listed', async () => {
    const urls = [`${disallow.origin}/`, `${disallow.origin}/private/report-1`, `${disallow.origin}/shop/1`, `${disallow.origin}/private/`];
    const { result, allowed, skipped } = await filter(urls);
    assert.deepEqual(allowed, [`${disallow.origin}/`, `${disallow.origin}/shop/1`]);
    assert.deepEqual(skipped, [`${disallow.origin}/private/report-1`, `${disallow.origin}/private/`]);
    assert.equal(result.count, 2);
    assert.equal(result.skipped, 2);
    assert.equal(result.skippedRef.list, 'allowed.robots');
    assert.match(disallow.agents[0], /WebDataBot/);
  });

  test("an agent with a group of its own follows that group, not `*`", async () => {
    const urls = [`${disallow.origin}/private/report-1`, `${disallow.origin}/shop/1`];
    const { allowed, skipped } = await filter(urls, { userAgent: 'NosyBot' });
    assert.deepEqual(allowed, [`${disallow.origin}/private/report-1`]);
    assert.deepEqual(skipped, [`${disallow.origin}/shop/1`]);
  });

  test('a 404 robots.txt allows everything', async () => {
    const urls = [`${missing.origin}/private/a`, `${missing.origin}/x`];
    const { allowed, result } = await filter(urls);
    assert.deepEqual(allowed, urls);
    assert.equal(result.skipped, 0);
  });

  test('a robots.txt that cannot be reached (closed port) allows everything', async () => {
    const urls = [`${closedOrigin}/a`];
    const { allowed } = await filter(urls);
    assert.deepEqual(allowed, urls);
  });

  test('a 5xx robots.txt disallows the whole origin (RFC 9309 unreachable) on the last attempt, after one quick retry', async () => {
    const urls = [`${broken.origin}/`, `${broken.origin}/a`, `${allowAll.origin}/b`];
    const { allowed, skipped } = await filter(urls, { attempt: ROBOTS_UNREACHABLE_ATTEMPTS });
    assert.deepEqual(allowed, [`${allowAll.origin}/b`]);
    assert.deepEqual(skipped, [`${broken.origin}/`, `${broken.origin}/a`]);
    assert.equal(broken.robotsRequests, 2);
  });

  test('before the last attempt, an unreachable robots.txt fails the activity retryably and decides nothing', async () => {
    const runId = `robots-${++runs}`;
    await store.appendLinks(runId, 'from', [{ url: `${broken.origin}/a` }, { url: `${allowAll.origin}/b` }]);
    for (let attempt = 1; attempt < ROBOTS_UNREACHABLE_ATTEMPTS; attempt++) {
      await assert.rejects(call(acts.filterRobots, { runId, fromList: 'from', toList: 'allowed' }, attempt), (err: unknown) =>
        err instanceof ApplicationFailure && err.type === 'robots_unreachable' && !err.nonRetryable);
    }
    assert.deepEqual(await listOf(runId, 'allowed'), [], 'a list was written before the verdict');
    assert.deepEqual(await listOf(runId, 'allowed.robots'), []);
    assert.equal(broken.robotsRequests, 2 * (ROBOTS_UNREACHABLE_ATTEMPTS - 1), 'a failed verdict was cached');
  });

  test('a robots.txt that times out disallows the whole origin on the last attempt', async () => {
    const { allowed, skipped } = await filter([`${hanging.origin}/a`], { attempt: ROBOTS_UNREACHABLE_ATTEMPTS, with: shortDeadline });
    assert.deepEqual(allowed, []);
    assert.deepEqual(skipped, [`${hanging.origin}/a`]);
  });

  test('robots.txt is fetched once per origin per run', async () => {
    const urls = [`${disallow.origin}/a`, `${disallow.origin}/private/b`, `${disallow.origin}/c`];
    const first = await filter(urls, { runId: 'robots-once' });
    assert.equal(first.result.skipped, 1);
    await store.appendLinks('robots-once', 'again', urls.map((url) => ({ url })));
    await call(acts.filterRobots, { runId: 'robots-once', fromList: 'again', toList: 'again.allowed' });
    assert.equal(disallow.robotsRequests, 1, 'one fetch for two filters of the same run');
    await filter(urls); // another run
    assert.equal(disallow.robotsRequests, 2);
  });

  test('filtering again is idempotent (lists keyed by URL)', async () => {
    const urls = [`${disallow.origin}/a`, `${disallow.origin}/private/b`];
    const { runId } = await filter(urls);
    await call(acts.filterRobots, { runId, fromList: 'from', toList: 'allowed' });
    assert.deepEqual(await listOf(runId, 'allowed'), [`${disallow.origin}/a`]);
    assert.deepEqual(await listOf(runId, 'allowed.robots'), [`${disallow.origin}/private/b`]);
  });
});

describe('collectors with the robots check', () => {
  function serveJob(urls: string[], robotsBlocked: string[] = []) {
    api.handler = (req) => req.path.endsWith('/errors')
      ? { body: { success: true, errors: [], robotsBlocked } }
      : {
          body: {
            success: true, status: 'completed', total: urls.length, completed: urls.length, creditsUsed: urls.length, next: null,
            data: urls.map((u) => ({ markdown: `# ${u}`, metadata: { sourceURL: u, url: u, statusCode: 200 } })),
          },
        };
  }

  test('a disallowed document is not stored: kept as a ROBOTS_BLOCKED failure and counted', async () => {
    const urls = [`${disallow.origin}/`, `${disallow.origin}/private/report-1`, `${disallow.origin}/about`];
    serveJob(urls, [`${disallow.origin}/private/report-2`]);
    const runId = `collect-robots-${++runs}`;
    const res = await call(acts.collectBatch, { runId, jobId: JOB, robots: {} });
    assert.equal(res.documents, 2);
    assert.deepEqual(res.skipped, { robots: 2 }, 'the dropped document and the job\'s own robotsBlocked');
    const stored: string[] = [];
    for await (const doc of store.readDocuments(runId)) stored.push(doc.url);
    assert.deepEqual(stored.sort(), [`${disallow.origin}/`, `${disallow.origin}/about`]);
    const failures: Array<{ url: string; code?: string }> = [];
    for await (const f of store.readFailures(runId)) failures.push({ url: f.url, code: f.code });
    assert.deepEqual(failures.filter((f) => f.code === 'ROBOTS_BLOCKED').map((f) => f.url).sort(),
      [`${disallow.origin}/private/report-1`, `${disallow.origin}/private/report-2`]);
  });

  test('a document whose final URL (after a redirect) is disallowed is not stored', async () => {
    api.handler = (req) => req.path.endsWith('/errors')
      ? { body: { success: true, errors: [], robotsBlocked: [] } }
      : {
          body: {
            success: true, status: 'completed', total: 1, completed: 1, creditsUsed: 1, next: null,
            data: [{ markdown: 'x', metadata: { sourceURL: `${disallow.origin}/go`, url: `${disallow.origin}/private/x`, statusCode: 200 } }],
          },
        };
    const runId = `collect-robots-${++runs}`;
    const res = await call(acts.collectBatch, { runId, jobId: JOB, robots: {} });
    assert.equal(res.documents, 0);
    assert.deepEqual(res.skipped, { robots: 1 });
  });

  test('a status page of two sites: each page gets its own verdict, each site\'s robots.txt is read once', async () => {
    const urls = [
      `${allowAll.origin}/private/a`, `${disallow.origin}/private/b`, `${disallow.origin}/c`,
      `${allowAll.origin}/d`, `${disallow.origin}/private/e`, `${allowAll.origin}/f`,
    ];
    serveJob(urls);
    const runId = `collect-robots-${++runs}`;
    const res = await call(acts.collectBatch, { runId, jobId: JOB, robots: {} });
    assert.equal(res.documents, 4);
    assert.deepEqual(res.skipped, { robots: 2 });
    const stored: string[] = [];
    for await (const doc of store.readDocuments(runId)) stored.push(doc.url);
    assert.deepEqual(stored.sort(), [`${allowAll.origin}/d`, `${allowAll.origin}/f`, `${allowAll.origin}/private/a`, `${disallow.origin}/c`].sort());
    assert.deepEqual([allowAll.robotsRequests, disallow.robotsRequests], [1, 1]);
  });

  test('without the check (ignoreRobotsTxt in effect) every document is stored', async () => {
    const urls = [`${disallow.origin}/`, `${disallow.origin}/private/report-1`];
    serveJob(urls);
    const runId = `collect-robots-${++runs}`;
    const res = await call(acts.collectCrawl, { runId, jobId: JOB });
    assert.equal(res.documents, 2);
    assert.equal(res.skipped, undefined);
    assert.equal(disallow.robotsRequests, 0);
  });
});
