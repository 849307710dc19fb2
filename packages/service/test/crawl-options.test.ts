// Each crawl option's effect on the exact URL sets (data, errors, robotsBlocked), compared
// with a breadth-first walk of the demo site's manifest (jobs-helpers expectedCrawl).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  expectedCrawl,
  instrumentedEngine,
  sorted,
  startJobsStack,
  team,
  waitForJob,
  type Instrumented,
  type JobsStack,
  type OracleOptions,
} from './jobs-helpers.js';

describe('crawl options', () => {
  let stack: JobsStack;
  let site: string;

  before(async () => {
    stack = await startJobsStack({
      engine: instrumentedEngine(),
      teams: [
        team('a', { credits: 100_000, concurrency: 8 }),
        team('ent', { credits: 100_000, concurrency: 8, features: { ignoreRobotsTxt: true, zeroDataRetention: true, searchEnterprise: [] } }),
      ],
    });
    site = stack.site.url;
  });
  after(() => stack.close());

  async function crawl(body: Record<string, unknown>, key?: string) {
    const res = await stack.call('POST', '/v2/crawl', { body, key });
    assert.equal(res.status, 200, res.text);
    const result = await waitForJob(stack, `/v2/crawl/${res.body.id as string}`, { key });
    const errors = await stack.call('GET', `/v2/crawl/${res.body.id as string}/errors`, { key });
    assert.equal(errors.status, 200);
    return { ...result, id: res.body.id as string, errors: errors.body.errors as Array<{ url: string; code?: string }>, robotsBlocked: errors.body.robotsBlocked as string[] };
  }

  async function assertMatchesOracle(body: Record<string, unknown>, oracle: Omit<OracleOptions, 'start'>, key?: string) {
    const got = await crawl(body, key);
    const want = expectedCrawl(stack.site.manifest, { start: body.url as string, ...oracle });
    assert.equal(got.status, 'completed');
    assert.deepEqual(sorted(got.urls), sorted(want.ok), 'data URLs');
    assert.equal(new Set(got.urls).size, got.urls.length, 'no page twice');
    assert.deepEqual(sorted(got.errors.map((e) => e.url)), sorted(want.failed), 'error URLs');
    assert.deepEqual(sorted(got.robotsBlocked), sorted(want.robotsBlocked), 'robotsBlocked');
    assert.equal(got.last.total, want.ok.size);
    assert.equal(got.last.completed, want.ok.size);
    return got;
  }

  test('defaults: the whole host, sitemaps read, robots.txt obeyed, failures listed apart', async () => {
    const got = await assertMatchesOracle({ url: `${site}/` }, {});
    // The sitemap-only orphans (blog N ≡ 7 mod 10, shop N ≡ 9 mod 10) prove the sitemaps were read.
    assert.ok(got.urls.includes(`${site}/blog/post-7`));
    assert.ok(got.urls.includes(`${site}/shop/item-9`)); // listed in the gzipped shop sitemap
    assert.deepEqual(got.robotsBlocked, [`${site}/private/`]);
    // Error pages are documents with their status, as on the open-source server; /errors stays empty.
    assert.deepEqual(got.errors, []);
    const status = Object.fromEntries(got.docs.filter((d) => d.metadata.statusCode >= 400).map((d) => [new URL(d.metadata.sourceURL).pathname, d.metadata.statusCode]));
    assert.deepEqual(status, { '/blog/missing-post': 404, '/docs/broken-page': 500 });
  });

  test('includePaths: unanchored regex on the pathname; a non-matching start URL is not scraped', async () => {
    const got = await assertMatchesOracle({ url: `${site}/`, includePaths: ['^/blog/post-'] }, { includePaths: ['^/blog/post-'] });
    assert.ok(!got.urls.includes(`${site}/`));
    assert.ok(got.urls.length > 0, 'sitemap posts are still found');
    const unanchored = await assertMatchesOracle({ url: `${site}/`, includePaths: ['item-1'] }, { includePaths: ['item-1'] });
    assert.ok(unanchored.urls.some((u) => u.endsWith('/shop/item-1')));
  });

  test('excludePaths win over includePaths', async () => {
    const body = { url: `${site}/`, includePaths: ['^/$', '^/(blog|docs)'], excludePaths: ['^/docs/guide-[23]', 'post-1'] };
    const got = await assertMatchesOracle(body, { includePaths: body.includePaths, excludePaths: body.excludePaths });
    assert.ok(!got.urls.some((u) => /guide-[23]|post-1/.test(new URL(u).pathname)));
  });

  test('regexOnFullURL: patterns see the query string', async () => {
    const onPath = await assertMatchesOracle({ url: `${site}/shop`, excludePaths: ['color='] }, { excludePaths: ['color='] });
    assert.ok(onPath.urls.some((u) => u.includes('color=red')), 'pathname match ignores the query');
    const full = await assertMatchesOracle(
      { url: `${site}/shop`, excludePaths: ['color='], regexOnFullURL: true },
      { excludePaths: ['color='], regexOnFullURL: true },
    );
    assert.ok(!full.urls.some((u) => u.includes('color=')));
  });

  test('maxDiscoveryDepth: start and sitemap URLs are depth 0; links on a page at the max depth are ignored', async () => {
    for (const depth of [0, 1, 2]) {
      const got = await assertMatchesOracle({ url: `${site}/`, sitemap: 'skip', maxDiscoveryDepth: depth }, { sitemap: 'skip', maxDiscoveryDepth: depth });
      if (depth === 0) assert.deepEqual(got.urls, [`${site}/`]);
    }
    await assertMatchesOracle({ url: `${site}/docs`, maxDiscoveryDepth: 1 }, { maxDiscoveryDepth: 1 });
  });

  test('sitemap modes: skip reads none, only follows no links', async () => {
    const skip = await assertMatchesOracle({ url: `${site}/`, sitemap: 'skip' }, { sitemap: 'skip' });
    assert.ok(!skip.urls.includes(`${site}/blog/post-7`), 'orphans are only in the sitemap');
    const only = await assertMatchesOracle({ url: `${site}/`, sitemap: 'only' }, { sitemap: 'only' });
    const sitemapUrls = stack.site.manifest.entries.filter((e) => e.host === 'main' && e.inSitemap).map((e) => e.url);
    assert.deepEqual(sorted(only.urls), sorted(new Set([`${site}/`, ...sitemapUrls])));
  });

  test('ignoreQueryParameters: one page per path', async () => {
    const plain = await crawl({ url: `${site}/shop` });
    const paths = plain.urls.map((u) => new URL(u).pathname);
    assert.ok(paths.length > new Set(paths).size, 'the shop has query variants of one item');
    const got = await crawl({ url: `${site}/shop`, ignoreQueryParameters: true });
    const want = expectedCrawl(stack.site.manifest, { start: `${site}/shop`, ignoreQueryParameters: true });
    const key = (u: string) => new URL(u).pathname;
    assert.deepEqual(sorted(got.urls.map(key)), sorted([...want.ok].map(key)));
    assert.equal(new Set(got.urls.map(key)).size, got.urls.length);
  });

  test('crawlEntireDomain: false keeps to paths under the start path; true adds siblings and parents', async () => {
    const child = await assertMatchesOracle({ url: `${site}/docs/guide-1` }, {});
    assert.ok(child.urls.every((u) => u === `${site}/docs/guide-1` || u.startsWith(`${site}/docs/guide-1/`)));
    assert.ok(child.urls.length > 1);
    const entire = await assertMatchesOracle({ url: `${site}/docs/guide-1`, crawlEntireDomain: true }, { crawlEntireDomain: true });
    assert.ok(entire.urls.includes(`${site}/`) && entire.urls.includes(`${site}/docs/guide-2`));
  });

  test('robots.txt: robotsUserAgent picks the rules, ignoreRobotsTxt skips them (enterprise only)', async () => {
    const forbidden = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/`, robotsUserAgent: 'NosyBot' } });
    assert.equal(forbidden.status, 403);
    assert.equal((await stack.call('POST', '/v2/crawl', { body: { url: `${site}/`, ignoreRobotsTxt: true } })).status, 403);

    const nosy = await assertMatchesOracle({ url: `${site}/`, robotsUserAgent: 'NosyBot' }, { robots: 'named' }, 'key-ent');
    assert.ok(nosy.robotsBlocked.some((u) => new URL(u).pathname.startsWith('/shop')));
    assert.ok(!nosy.urls.some((u) => new URL(u).pathname.startsWith('/shop')));

    const ignored = await assertMatchesOracle({ url: `${site}/`, ignoreRobotsTxt: true }, { robots: 'none' }, 'key-ent');
    assert.ok(ignored.urls.includes(`${site}/private/report-1`));
    assert.deepEqual(ignored.robotsBlocked, []);
  });

  test('allowSubdomains: blog.localhost is followed from localhost only when allowed', async () => {
    const port = stack.site.port;
    const start = `http://localhost:${port}/`;
    const alias = stack.site.manifest.entries.filter((e) => e.host === 'alias' && e.depth !== null && e.status < 400).map((e) => e.url);
    const main = [...expectedCrawl(stack.site.manifest, { start: `${site}/` }).ok].map((u) => u.replace(site, `http://localhost:${port}`));
    const without = await crawl({ url: start });
    assert.deepEqual(sorted(without.urls), sorted(main));
    const withSubs = await crawl({ url: start, allowSubdomains: true });
    assert.deepEqual(sorted(withSubs.urls), sorted([...main, ...alias]));
    assert.ok(!withSubs.urls.some((u) => u.startsWith(site)), 'the alias pages link 127.0.0.1, another host');
  });

  test('allowExternalLinks: other loopback hosts are crawled and their links followed; non-loopback hosts are never fetched', async () => {
    const engine = stack.engine as Instrumented;
    engine.reset();
    const got = await crawl({ url: `${site}/`, allowExternalLinks: true });
    const want = expectedCrawl(stack.site.manifest, { start: `${site}/` });
    const aliasRoot = `${stack.site.aliasUrl}/`;
    const onAlias = got.urls.filter((u) => u.startsWith(stack.site.aliasUrl));
    assert.ok(onAlias.includes(aliasRoot), 'the alias root is linked from home');
    assert.ok(onAlias.length > 1, 'the alias host\'s own links are followed');
    assert.deepEqual(sorted(got.urls.filter((u) => u.startsWith(`${site}/`))), sorted(want.ok));
    assert.ok(engine.calls.length > 0 && !engine.calls.some((c) => c.url.includes('external.invalid')), 'never handed to the engine');
    const refused = got.errors.filter((e) => e.code === 'DESTINATION_NOT_ALLOWED').map((e) => new URL(e.url).host);
    assert.ok(refused.length > 0 && refused.every((h) => h === 'external.invalid'));
  });

  test('a start URL that redirects: the scope stays the start URL\'s, so only the start page', async () => {
    const got = await crawl({ url: `${site}/go/docs`, sitemap: 'skip' });
    assert.deepEqual(got.urls, [`${site}/go/docs`]);
    const first = got.docs.find((d) => d.metadata.sourceURL === `${site}/go/docs`);
    assert.equal(first?.metadata.url, `${site}/docs`);
  });

  test('invalid requests: bad regex, unknown option, bad URL', async () => {
    const bad = await stack.call('POST', '/v2/crawl', { body: { url: `${site}/`, includePaths: ['(unclosed'] } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'BAD_REQUEST');
    assert.equal((await stack.call('POST', '/v2/crawl', { body: { url: `${site}/`, maxDepth: 2 } })).status, 400);
    assert.equal((await stack.call('POST', '/v2/crawl', { body: { url: 'ftp://x/' } })).status, 400);
  });
});
