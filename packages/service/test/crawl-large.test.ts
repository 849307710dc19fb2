// A 2,000-page demo site crawls to completion with the exact expected URL set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectedCrawl, sorted, startJobsStack, team, waitForJob, type JobsStack } from './jobs-helpers.js';

// Generous deadlines: 2,000 pages take about a minute alone and over three under load.
describe('large crawl', () => {
  let stack: JobsStack;

  before(async () => {
    stack = await startJobsStack({ site: { pages: 2000 }, teams: [team('a', { credits: 1_000_000, concurrency: 10 })] });
  });
  after(() => stack.close());

  test('2,000 content pages: every reachable page once, nothing else', { timeout: 600_000 }, async () => {
    const start = `${stack.site.url}/`;
    const want = expectedCrawl(stack.site.manifest, { start });
    assert.ok(want.ok.size > 1900, `${want.ok.size} pages expected`);
    const t0 = Date.now();
    const res = await stack.call('POST', '/v2/crawl', { body: { url: start } });
    assert.equal(res.status, 200);
    const done = await waitForJob(stack, `/v2/crawl/${res.body.id as string}`, { timeoutMs: 590_000 });
    const seconds = (Date.now() - t0) / 1000;
    assert.equal(done.status, 'completed');
    assert.deepEqual(sorted(done.urls), sorted(want.ok));
    assert.equal(done.last.total, want.ok.size);
    assert.equal(done.last.completed, want.ok.size);
    assert.equal(done.last.creditsUsed, want.ok.size);
    assert.equal(done.pages, Math.ceil(want.ok.size / 100));
    const errors = await stack.call('GET', `/v2/crawl/${res.body.id as string}/errors`);
    assert.deepEqual(sorted(errors.body.errors.map((e: { url: string }) => e.url)), sorted(want.failed));
    assert.deepEqual(sorted(errors.body.robotsBlocked), sorted(want.robotsBlocked));
    console.log(`# crawled ${done.docs.length} pages in ${seconds.toFixed(1)} s (${(done.docs.length / seconds).toFixed(0)} pages/s)`);
  });
});
