// One test per crawl rule learnt from the differential test against the open-source server
// (test/compat/crawl-differential.compat.ts). The Crawler runs over an in-memory site: a fake
// fetcher for robots.txt and sitemaps, a fake visitor for pages. Deterministic: concurrency 1,
// no network, no timers. (404 pages as documents: crawl.test.ts and crawl-options.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Crawler, type CrawlSettings, type VisitResult } from '../src/crawler/crawler.js';
import type { ResourceFetcher } from '../src/crawler/fetcher.js';
import { PathFilter } from '../src/crawler/path-filter.js';
import { RobotsBook } from '../src/crawler/robots.js';
import { UrlScope } from '../src/crawler/url-scope.js';

const A = 'http://127.0.0.10:8000';
const B = 'http://127.0.0.11:8000';

interface FakeSite {
  /** URL → links (absolute) or a redirect target. */
  pages: Record<string, { links?: string[]; redirect?: string }>;
  robots?: string;
  sitemap?: string[];
}

function fetcherOf(site: FakeSite): ResourceFetcher {
  return {
    fetch: (url) => {
      const body = url === `${A}/robots.txt` && site.robots !== undefined
        ? site.robots
        : url === `${A}/sitemap.xml` && site.sitemap
          ? `<urlset>${site.sitemap.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`
          : undefined;
      return Promise.resolve({ status: body === undefined ? 404 : 200, url, contentType: 'text/plain', body: Buffer.from(body ?? '') });
    },
    close: () => Promise.resolve(),
  };
}

async function run(site: FakeSite, start: string, o: Partial<CrawlSettings> & { includePaths?: string[]; excludePaths?: string[]; allowExternalLinks?: boolean } = {}) {
  const fetcher = fetcherOf(site);
  const visited: string[] = [];
  const blocked: string[] = [];
  const startUrl = new URL(start);
  const settings: CrawlSettings = {
    start: startUrl,
    limit: o.limit ?? 1000,
    maxDiscoveryDepth: o.maxDiscoveryDepth,
    sitemap: o.sitemap ?? (site.sitemap ? 'include' : 'skip'),
    ignoreQueryParameters: false,
    scope: new UrlScope(startUrl, { crawlEntireDomain: false, allowSubdomains: false, allowExternalLinks: o.allowExternalLinks ?? false }),
    filter: new PathFilter({ includePaths: o.includePaths, excludePaths: o.excludePaths }),
    robots: new RobotsBook(fetcher, 'WebDataBot'),
    obeyRobots: true,
    concurrency: 1,
    delayMs: 0,
    allowNonLoopback: false,
    fetcher,
  };
  const crawler = new Crawler(settings, {
    visit(url): Promise<VisitResult> {
      visited.push(url);
      const page = site.pages[url];
      if (page?.redirect) return Promise.resolve({ status: 'ok', links: site.pages[page.redirect]?.links ?? [], finalUrl: page.redirect });
      return Promise.resolve({ status: 'ok', links: page?.links ?? [] });
    },
    robotsBlocked: (url) => blocked.push(url),
    notAllowed: () => undefined,
  }, new AbortController().signal);
  await crawler.run();
  return { visited, blocked };
}

test('links to non-page files (images, styles, scripts) are never visited', async () => {
  const got = await run({ pages: { [`${A}/`]: { links: [`${A}/logo.png`, `${A}/app.js`, `${A}/a`, `${A}/guide.pdf`] } } }, `${A}/`);
  assert.deepEqual(got.visited, [`${A}/`, `${A}/a`, `${A}/guide.pdf`]);
});

test('a trailing slash does not make another page: a link and its slash redirect are one visit', async () => {
  const got = await run({
    pages: {
      [`${A}/`]: { links: [`${A}/docs/v2`, `${A}/docs/v2/`, `${A}/docs`] },
      [`${A}/docs/v2`]: { redirect: `${A}/docs/v2/` },
      [`${A}/docs/v2/`]: { links: [`${A}/docs/v2/auth`] },
    },
  }, `${A}/`);
  assert.deepEqual(got.visited, [`${A}/`, `${A}/docs/v2`, `${A}/docs`, `${A}/docs/v2/auth`]);
});

test('a start URL that redirects keeps the start URL\'s scope: the target\'s children are not crawled', async () => {
  const got = await run({
    pages: {
      [`${A}/start`]: { redirect: `${A}/docs/` },
      [`${A}/docs/`]: { links: [`${A}/docs/a`, `${A}/docs/b`] },
    },
  }, `${A}/start`);
  assert.deepEqual(got.visited, [`${A}/start`]);
});

test('limit with the sitemap: the start URL, then sitemap URLs in file order, before the start page\'s links', async () => {
  const got = await run({
    pages: { [`${A}/`]: { links: [`${A}/l1`, `${A}/l2`, `${A}/l3`] } },
    sitemap: [`${A}/s3`, `${A}/s1`, `${A}/s2`],
  }, `${A}/`, { limit: 3 });
  assert.deepEqual(got.visited, [`${A}/`, `${A}/s3`, `${A}/s1`]);
});

test('allowExternalLinks: an external host is crawled and its own links are followed', async () => {
  const got = await run({
    pages: {
      [`${A}/`]: { links: [`${B}/partners/`] },
      [`${B}/partners/`]: { links: [`${B}/partners/a`] },
      [`${B}/partners/a`]: { links: [`${B}/partners/b`] },
    },
  }, `${A}/`, { allowExternalLinks: true });
  assert.deepEqual(got.visited, [`${A}/`, `${B}/partners/`, `${B}/partners/a`, `${B}/partners/b`]);
});

const ROBOTS = 'User-agent: *\nDisallow: /private/\n';

test('robotsBlocked lists disallowed links met on a page at the maximum depth', async () => {
  const got = await run({
    robots: ROBOTS,
    pages: { [`${A}/`]: { links: [`${A}/a`] }, [`${A}/a`]: { links: [`${A}/private/x`, `${A}/b`] } },
  }, `${A}/`, { maxDiscoveryDepth: 1 });
  assert.deepEqual(got.visited, [`${A}/`, `${A}/a`]);
  assert.deepEqual(got.blocked, [`${A}/private/x`]);
});

test('robotsBlocked lists disallowed links met after the limit was reached, and never spends the limit on them', async () => {
  const got = await run({
    robots: ROBOTS,
    pages: { [`${A}/`]: { links: [`${A}/private/y`, `${A}/a`, `${A}/b`] } },
  }, `${A}/`, { limit: 2 });
  assert.deepEqual(got.visited, [`${A}/`, `${A}/a`]);
  assert.deepEqual(got.blocked, [`${A}/private/y`]);
});

test('robotsBlocked: out-of-scope and non-included disallowed links are listed, excluded ones are not', async () => {
  const got = await run({
    robots: ROBOTS,
    pages: { [`${A}/docs/`]: { links: [`${A}/private/scope`, `${A}/private/excluded`, `${A}/docs/a`] } },
  }, `${A}/docs/`, { excludePaths: ['excluded'], includePaths: ['^/docs'] });
  assert.deepEqual(got.visited, [`${A}/docs/`, `${A}/docs/a`]);
  assert.deepEqual(got.blocked, [`${A}/private/scope`]);
});

test('a start URL that redirects: the disallowed links of the page it landed on are in robotsBlocked, though none of its links is crawled', async () => {
  const got = await run({
    robots: ROBOTS,
    pages: {
      [`${A}/start`]: { redirect: `${A}/docs/` },
      [`${A}/docs/`]: { links: [`${A}/docs/a`, `${A}/private/notes`] },
    },
  }, `${A}/start`);
  assert.deepEqual(got.visited, [`${A}/start`]);
  assert.deepEqual(got.blocked, [`${A}/private/notes`]);
});

test('robotsBlocked lists disallowed sitemap URLs', async () => {
  const got = await run({ robots: ROBOTS, pages: { [`${A}/`]: {} }, sitemap: [`${A}/private/s`, `${A}/s`] }, `${A}/`);
  assert.deepEqual(got.visited, [`${A}/`, `${A}/s`]);
  assert.deepEqual(got.blocked, [`${A}/private/s`]);
});
