// POST /v2/map against the demo site: exact URL sets per sitemap mode, query handling,
// subdomains, path scope, limit, search ranking, titles, sitemap cache, credits, timeout.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SiteManifest } from '../src/demo-site/index.js';
import { DISCOVERY_MAX_DEPTH } from '../src/map/discover.js';
import { sorted, startJobsStack, team, type JobsStack } from './jobs-helpers.js';

interface MapOracle {
  start: string;
  sitemap?: 'skip' | 'include' | 'only';
  ignoreQueryParameters?: boolean;
  includeSubdomains?: boolean;
}

/**
 * The links map must list: the start URL, the start host's sitemap URLs, and every in-scope
 * link on the HTML pages a breadth-first walk fetches (depth <= DISCOVERY_MAX_DEPTH, robots.txt
 * obeyed), read from the manifest.
 */
function expectedMap(manifest: SiteManifest, o: MapOracle, hostOf: (url: string) => string = (u) => u): Set<string> {
  const start = new URL(o.start);
  const ignoreQuery = o.ignoreQueryParameters ?? true;
  const subdomains = o.includeSubdomains ?? true;
  const prefix = start.pathname === '/' ? '/' : `${start.pathname}/`;
  const inScope = (u: URL) => {
    if (u.host === start.host) return u.pathname === start.pathname || u.pathname.startsWith(prefix);
    return subdomains && u.port === start.port && u.hostname.endsWith(`.${start.hostname}`);
  };
  const norm = (url: string) => {
    const u = new URL(hostOf(url));
    if (ignoreQuery) u.search = '';
    return u.href;
  };
  const out = new Set<string>([norm(start.href)]);
  if ((o.sitemap ?? 'include') !== 'skip') {
    for (const e of manifest.entries) if (e.host === 'main' && e.inSitemap && inScope(new URL(hostOf(e.url)))) out.add(norm(e.url));
  }
  if ((o.sitemap ?? 'include') === 'only') return out;
  // The walk runs over manifest URLs; `hostOf` maps them to the host the map started on.
  const startEntry = manifest.entries.find((e) => hostOf(e.url) === start.href);
  let layer = startEntry ? [startEntry.url] : [];
  const visited = new Set(layer);
  for (let depth = 0; depth <= DISCOVERY_MAX_DEPTH && layer.length > 0; depth++) {
    const next: string[] = [];
    for (const url of layer) {
      const entry = manifest.get(url);
      if (!entry || entry.status >= 400 || entry.robotsDisallowed || (entry.kind !== 'html' && entry.kind !== 'js')) continue;
      for (const link of entry.links) {
        const u = new URL(hostOf(link));
        if (!inScope(u)) continue;
        out.add(norm(link));
        if (!visited.has(link)) {
          visited.add(link);
          next.push(link);
        }
      }
    }
    layer = next;
  }
  return out;
}

describe('map', () => {
  let stack: JobsStack;
  let site: string;

  before(async () => {
    stack = await startJobsStack({ teams: [team('a', { credits: 100_000 }), team('once', { credits: 1 })] });
    site = stack.site.url;
  });
  after(() => stack.close());

  async function map(body: Record<string, unknown>, key?: string) {
    const res = await stack.call('POST', '/v2/map', { body, key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    return res.body.links as Array<{ url: string; title?: string; description?: string }>;
  }

  test('default: sitemaps plus link discovery, query strings dropped, the start URL first', async () => {
    const links = await map({ url: `${site}/` });
    assert.equal(links[0].url, `${site}/`);
    assert.deepEqual(sorted(links.map((l) => l.url)), sorted(expectedMap(stack.site.manifest, { start: `${site}/` })));
    assert.ok(!links.some((l) => l.url.includes('?')));
    assert.equal(new Set(links.map((l) => l.url)).size, links.length);
  });

  test('sitemap modes', async () => {
    for (const sitemap of ['only', 'skip', 'include'] as const) {
      const links = await map({ url: `${site}/`, sitemap, ignoreCache: true });
      assert.deepEqual(sorted(links.map((l) => l.url)), sorted(expectedMap(stack.site.manifest, { start: `${site}/`, sitemap })), sitemap);
    }
  });

  test('ignoreQueryParameters false keeps query variants', async () => {
    const links = await map({ url: `${site}/`, ignoreQueryParameters: false });
    assert.deepEqual(sorted(links.map((l) => l.url)), sorted(expectedMap(stack.site.manifest, { start: `${site}/`, ignoreQueryParameters: false })));
    assert.ok(links.some((l) => l.url.includes('?ref=home')));
  });

  test('includeSubdomains (default true): blog.localhost is part of localhost', async () => {
    const start = `http://localhost:${stack.site.port}/`;
    const hostOf = (u: string) => u.replace(site, `http://localhost:${stack.site.port}`);
    const withSubs = await map({ url: start, sitemap: 'skip' });
    assert.deepEqual(sorted(withSubs.map((l) => l.url)), sorted(expectedMap(stack.site.manifest, { start, sitemap: 'skip' }, hostOf)));
    assert.ok(withSubs.some((l) => l.url.startsWith(stack.site.aliasUrl)));
    const without = await map({ url: start, sitemap: 'skip', includeSubdomains: false });
    assert.ok(!without.some((l) => l.url.startsWith(stack.site.aliasUrl)));
    assert.equal(without.length, withSubs.filter((l) => !l.url.startsWith(stack.site.aliasUrl)).length);
  });

  test('a start URL with a path maps that section only', async () => {
    const links = await map({ url: `${site}/docs` });
    assert.deepEqual(sorted(links.map((l) => l.url)), sorted(expectedMap(stack.site.manifest, { start: `${site}/docs` })));
    assert.ok(links.every((l) => l.url === `${site}/docs` || l.url.startsWith(`${site}/docs/`)));
  });

  test('limit cuts the list; titles and descriptions come from visited pages', async () => {
    const links = await map({ url: `${site}/`, limit: 5 });
    assert.equal(links.length, 5);
    const all = await map({ url: `${site}/` });
    const about = all.find((l) => l.url === `${site}/about`);
    const entry = stack.site.manifest.get(`${site}/about`);
    assert.equal(about?.title, entry?.title);
    assert.equal(about?.description, entry?.description);
    assert.equal((await stack.call('POST', '/v2/map', { body: { url: `${site}/`, limit: 100_001 } })).status, 400);
  });

  test('search ranks by path tokens, title and description', async () => {
    const links = await map({ url: `${site}/`, search: 'guide' });
    assert.match(new URL(links[0].url).pathname, /guide/);
    const target = stack.site.manifest.entries.find((e) => e.url.endsWith('/blog/post-5'));
    assert.ok(target);
    const byTitle = await map({ url: `${site}/`, search: target.title });
    assert.equal(byTitle[0].url, target.url);
    const all = await map({ url: `${site}/` });
    assert.equal(byTitle.length, all.length, 'search orders, it does not filter');
  });

  test('sitemap cache: a second map reads no sitemap unless ignoreCache', async () => {
    await map({ url: `${site}/`, sitemap: 'only' });
    stack.site.resetRequests();
    await map({ url: `${site}/`, sitemap: 'only' });
    assert.ok(!stack.site.requests.some((r) => r.path.includes('sitemap')), 'served from the cache');
    await map({ url: `${site}/`, sitemap: 'only', ignoreCache: true });
    assert.ok(stack.site.requests.some((r) => r.path === '/sitemap.xml'));
  });

  test('walk cache: the same map again fetches no page and answers the same; ignoreCache walks again; a timed-out walk is not kept', async () => {
    const body = { url: `${site}/docs`, sitemap: 'skip' as const };
    const first = await map({ ...body, ignoreCache: true });
    stack.site.resetRequests();
    assert.deepEqual(await map(body), first);
    assert.deepEqual(stack.site.requests.map((r) => r.path), [], 'served from the cache');
    assert.deepEqual(await map({ ...body, ignoreCache: true }), first);
    assert.ok(stack.site.requests.some((r) => r.path === '/docs'), 'walked again');
    // Another limit is another walk (the walk stops once it found enough).
    stack.site.resetRequests();
    assert.equal((await map({ ...body, limit: 3 })).length, 3);
    assert.ok(stack.site.requests.some((r) => r.path === '/docs'));
    // Cut short by its timeout: answered, not kept, so the next map walks.
    const slow = { url: `${site}/slow?ms=60000`, sitemap: 'skip' as const };
    await map({ ...slow, timeout: 300 });
    stack.site.resetRequests();
    await map({ ...slow, timeout: 300 });
    assert.ok(stack.site.requests.some((r) => r.path.startsWith('/slow')), 'the cut walk was not kept');
  });

  test('one credit per call, activity recorded; 402 when nothing is left', async () => {
    const before = stack.app.ledger.remaining('a');
    await map({ url: `${site}/about`, sitemap: 'skip' });
    assert.equal(stack.app.ledger.remaining('a'), before - 1);
    assert.ok(stack.app.context.activity.list('a', { endpoint: 'map', limit: 10 }).data.some((r) => r.target === `${site}/about`));
    await map({ url: `${site}/about`, sitemap: 'skip' }, 'key-once');
    assert.equal((await stack.call('POST', '/v2/map', { body: { url: `${site}/` }, key: 'key-once' })).status, 402);
  });

  test('timeout: answers with what was found so far', async () => {
    // The page answers only after 60 s: an answer before that did not wait for it.
    const t0 = Date.now();
    const links = await map({ url: `${site}/slow?ms=60000`, sitemap: 'skip', timeout: 300 });
    assert.ok(Date.now() - t0 < 60_000, `took ${Date.now() - t0} ms`);
    assert.deepEqual(links.map((l) => l.url), [`${site}/slow`]);
  });
});
