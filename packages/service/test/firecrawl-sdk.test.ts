// The official Firecrawl JS SDK (v4), unchanged, against the local service with its real
// scrape engine and demo site: a client written for the hosted service must work here too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { startLocalService, type LocalService } from '../src/app.js';
import { searchIndexOf } from '../src/search/index.js';
import { silentLogger } from '../src/http/logger.js';
import { team } from './platform-helpers.js';

describe('Firecrawl JS SDK against the local service', () => {
  let svc: LocalService;
  let site: string;
  let firecrawl: Firecrawl;

  before(async () => {
    svc = await startLocalService({ teams: [team('sdk', { credits: 500 })], logger: silentLogger, site: { pages: 12 } });
    site = svc.siteUrl!;
    firecrawl = new Firecrawl({ apiKey: 'key-sdk', apiUrl: svc.url });
  });
  after(() => svc.close());

  test('scrape returns the document with metadata.scrapeId', async () => {
    const doc = await firecrawl.scrape(`${site}/about`, { formats: ['markdown', 'links'] });
    assert.match(doc.markdown ?? '', /\S/);
    assert.ok((doc.links ?? []).length > 0);
    assert.equal(doc.metadata?.title, 'About the Demo Site');
    assert.equal(doc.metadata?.statusCode, 200);
    assert.equal(doc.metadata?.sourceURL, `${site}/about`);
    assert.match(String(doc.metadata?.scrapeId), /^[0-9a-f-]{36}$/);
    assert.equal(doc.metadata?.creditsUsed, 1);
  });

  test('a page that answers 404 is a document with statusCode and error', async () => {
    const doc = await firecrawl.scrape(`${site}/blog/missing-post`, { formats: ['markdown'] });
    assert.equal(doc.metadata?.statusCode, 404);
    assert.ok(doc.metadata?.error);
  });

  test('getCreditUsage and the historical usage by key', async () => {
    const usage = await firecrawl.getCreditUsage();
    assert.equal(usage.planCredits, 500);
    assert.equal(usage.remainingCredits, 498);
    assert.ok(usage.billingPeriodStart && usage.billingPeriodEnd);
    const history = await firecrawl.getCreditUsageHistorical(true);
    assert.equal(history.success, true);
    // The reference names the member totalCredits (2.11); the SDK's type says creditsUsed.
    const periods = history.periods as unknown as Array<{ apiKey?: string; totalCredits: number }>;
    assert.deepEqual(periods.map((p) => [p.apiKey, p.totalCredits]), [['key-sdk', 2]]);
  });

  test('search finds the demo site pages, indexed when the first search arrives', async () => {
    const index = searchIndexOf(svc.context);
    assert.equal(index.find(`${site}/`), undefined, 'the home page (never scraped here) is not indexed before a search asks');
    assert.equal(index.indexing, false);
    const res = await firecrawl.search('about demo site', { limit: 3 });
    assert.ok(index.find(`${site}/`), 'the first search indexed the demo site');
    assert.equal(index.indexing, false, 'the search waited for the indexing');
    assert.ok((res.web ?? []).some((item) => 'url' in item && item.url === `${site}/about`));
  });

  test('errors surface as SdkError with status and code', async () => {
    const stranger = new Firecrawl({ apiKey: 'wrong', apiUrl: svc.url });
    await assert.rejects(stranger.getCreditUsage(), (err: { status?: number }) => err.status === 401);
    await assert.rejects(
      firecrawl.scrape(`${site}/slow?ms=3000`, { formats: ['markdown'], timeout: 500 }),
      (err: { status?: number; code?: string }) => err.status === 408 && err.code === 'SCRAPE_TIMEOUT',
    );
  });
});
