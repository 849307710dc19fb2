// The official Firecrawl JS SDK (v4), unchanged, against the local service: a client
// written for the hosted service must work here too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { startLocalService, type LocalService } from '../src/app.js';
import { silentLogger } from '../src/http/logger.js';
import { stubScrapeEngine, team } from './platform-helpers.js';

describe('Firecrawl JS SDK against the local service', () => {
  let svc: LocalService;
  let firecrawl: Firecrawl;
  const page = 'http://127.0.0.1:9/docs/intro';

  before(async () => {
    svc = await startLocalService({ teams: [team('sdk', { credits: 500 })], scrapeEngine: stubScrapeEngine(), logger: silentLogger, site: false });
    firecrawl = new Firecrawl({ apiKey: 'key-sdk', apiUrl: svc.url });
  });
  after(() => svc.close());

  test('scrape returns the document with metadata.scrapeId', async () => {
    const doc = await firecrawl.scrape(page, { formats: ['markdown'] });
    assert.match(doc.markdown ?? '', /Page/);
    assert.equal(doc.metadata?.sourceURL, page);
    assert.match(String(doc.metadata?.scrapeId), /^[0-9a-f-]{36}$/);
    assert.equal(doc.metadata?.creditsUsed, 1);
  });

  test('getCreditUsage and the historical usage by key', async () => {
    const usage = await firecrawl.getCreditUsage();
    assert.equal(usage.planCredits, 500);
    assert.equal(usage.remainingCredits, 499);
    assert.ok(usage.billingPeriodStart && usage.billingPeriodEnd);
    const history = await firecrawl.getCreditUsageHistorical(true);
    assert.equal(history.success, true);
    // The reference names the member totalCredits (2.11); the SDK's type says creditsUsed.
    const periods = history.periods as unknown as Array<{ apiKey?: string; totalCredits: number }>;
    assert.deepEqual(periods.map((p) => [p.apiKey, p.totalCredits]), [['key-sdk', 1]]);
  });

  test('errors surface as SdkError with status and code', async () => {
    const stranger = new Firecrawl({ apiKey: 'wrong', apiUrl: svc.url });
    await assert.rejects(stranger.getCreditUsage(), (err: { status?: number }) => err.status === 401);
    await assert.rejects(
      firecrawl.scrape('http://127.0.0.1:9/timeout', { formats: ['markdown'] }),
      (err: { status?: number; code?: string }) => err.status === 408 && err.code === 'SCRAPE_TIMEOUT',
    );
  });
});
