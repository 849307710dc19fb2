// The official Firecrawl JS SDK (v4), unchanged, driving crawl, batch scrape and map on
// the local service in front of the demo site.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { startLocalService, type LocalService } from '../src/app.js';
import { startDemoSite, type DemoSite } from '../src/demo-site/index.js';
import { silentLogger } from '../src/http/logger.js';
import { expectedCrawl, realScrapeEngine, sorted, team } from './jobs-helpers.js';

describe('Firecrawl JS SDK: crawl, batch scrape, map', () => {
  let svc: LocalService;
  let site: DemoSite;
  let firecrawl: Firecrawl;

  before(async () => {
    site = await startDemoSite();
    svc = await startLocalService({ teams: [team('sdk', { credits: 10_000, concurrency: 6 })], scrapeEngine: realScrapeEngine(), logger: silentLogger, site: false });
    firecrawl = new Firecrawl({ apiKey: 'key-sdk', apiUrl: svc.url });
  });
  after(async () => {
    await svc.close();
    await site.close();
  });

  test('crawl(): the waiter returns every page of the section', async () => {
    const start = `${site.url}/docs`;
    const job = await firecrawl.crawl(start, { sitemap: 'skip', pollInterval: 1, timeout: 60 });
    assert.equal(job.status, 'completed');
    const want = expectedCrawl(site.manifest, { start, sitemap: 'skip' });
    assert.deepEqual(sorted(job.data.map((d) => d.metadata?.sourceURL as string)), sorted(want.ok));
    assert.equal(job.total, want.ok.size);
    assert.equal(job.completed, want.ok.size);
    assert.equal(job.creditsUsed, want.ok.size);
  });

  test('startCrawl, getCrawlStatus, getActiveCrawls, cancelCrawl, getCrawlErrors', async () => {
    const started = await firecrawl.startCrawl(`${site.url}/`, { limit: 40, maxConcurrency: 1, delay: 0.2, scrapeOptions: { formats: ['markdown'] } });
    assert.equal(started.url, `${svc.url}/v2/crawl/${started.id}`);
    const active = await firecrawl.getActiveCrawls();
    assert.ok(active.crawls.some((c) => c.id === started.id && c.url === `${site.url}/`));
    const running = await firecrawl.getCrawlStatus(started.id, { autoPaginate: false });
    assert.equal(running.status, 'scraping');
    assert.equal(await firecrawl.cancelCrawl(started.id), true);
    const cancelled = await firecrawl.getCrawlStatus(started.id);
    assert.equal(cancelled.status, 'cancelled');
    const errors = await firecrawl.getCrawlErrors(started.id);
    assert.ok(Array.isArray(errors.errors) && Array.isArray(errors.robotsBlocked));

    const finished = await firecrawl.crawl(`${site.url}/`, { sitemap: 'skip', maxDiscoveryDepth: 1, pollInterval: 1, timeout: 60 });
    const report = await firecrawl.getCrawlErrors(finished.id);
    assert.deepEqual(report.robotsBlocked, [`${site.url}/private/`]);
  });

  test('batchScrape(): documents for every URL, 404 pages with their status; idempotency key', async () => {
    const urls = [`${site.url}/about`, `${site.url}/blog/missing-post`, `${site.url}/docs/guide-1`];
    const job = await firecrawl.batchScrape(urls, { options: { formats: ['markdown'] }, pollInterval: 1, timeout: 60 });
    assert.equal(job.status, 'completed');
    assert.deepEqual(sorted(job.data.map((d) => d.metadata?.sourceURL as string)), sorted(urls));
    assert.equal(job.data.find((d) => d.metadata?.sourceURL === urls[1])?.metadata?.statusCode, 404);

    const key = randomUUID();
    const first = await firecrawl.startBatchScrape(urls, { idempotencyKey: key });
    await assert.rejects(firecrawl.startBatchScrape(urls, { idempotencyKey: key }), (err: { status?: number }) => err.status === 409);
    for (;;) {
      const status = await firecrawl.getBatchScrapeStatus(first.id);
      if (status.status !== 'scraping') {
        assert.equal(status.completed, 3);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  test('map(): objects with url, title and description; sitemap only; search ranking', async () => {
    const map = await firecrawl.map(`${site.url}/`, { limit: 500 });
    assert.ok(map.links.length > 50);
    assert.equal(map.links[0].url, `${site.url}/`);
    assert.equal(map.links.find((l) => l.url === `${site.url}/about`)?.title, site.manifest.get(`${site.url}/about`)?.title);
    const only = await firecrawl.map(`${site.url}/`, { sitemap: 'only' });
    const inSitemap = site.manifest.entries.filter((e) => e.host === 'main' && e.inSitemap).map((e) => e.url.replace(/\?.*$/, ''));
    assert.deepEqual(sorted(only.links.map((l) => l.url)), sorted(new Set([`${site.url}/`, ...inSitemap])));
    const search = await firecrawl.map(`${site.url}/`, { search: 'catalog' });
    assert.equal(search.links[0].url, `${site.url}/shop/catalog`);
  });
});
