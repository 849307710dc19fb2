// Fault `stallJobsAfterPages`: a crawl or batch scrape started while it is set scrapes that many
// pages and then stops moving (status scraping, completed frozen, the engine not called again)
// until it is cancelled; clearing the fault does not wake it, and jobs started after run normally.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { configFileSchema } from '../src/config/schema.js';
import { jobStoreOf } from '../src/jobs/index.js';
import { heldPages } from '../src/jobs/stall.js';
import { eventually, instrumentedEngine, startJobsStack, team, waitForJob, type Instrumented, type JobsStack } from './jobs-helpers.js';

describe('stall fault', () => {
  let stack: JobsStack;
  let engine: Instrumented;

  before(async () => {
    engine = instrumentedEngine();
    stack = await startJobsStack({ engine, teams: [team('a', { credits: 100_000, concurrency: 4 })], site: { pages: 40 } });
  });
  after(() => stack.close());
  beforeEach(() => {
    engine.reset();
    stack.app.faults.set('a', undefined);
  });

  const held = (id: string) => {
    const job = jobStoreOf(stack.app.context)?.get(id);
    assert.ok(job, `job ${id} known`);
    return heldPages(job);
  };

  async function status(path: string) {
    const res = await stack.call('GET', `${path}?limit=100`);
    assert.equal(res.status, 200, res.text);
    return res.body as { status: string; completed: number; total: number; creditsUsed: number; data: unknown[] };
  }

  /**
   * Waits until a page of the job is held at the gate and the pages let through are in: from
   * then on the job cannot move.
   */
  async function stalled(path: string, id: string, pages: number) {
    await eventually(async () => held(id) > 0 && (await status(path)).completed === pages, `${path} stalled at ${pages} pages`);
    const s = await status(path);
    assert.equal(s.status, 'scraping');
    assert.equal(s.completed, pages);
    assert.equal(s.data.length, pages);
    assert.equal(s.creditsUsed, pages);
    assert.ok(s.total > pages, `total ${s.total} still counts the queued pages`);
    assert.equal(engine.calls.length, pages, 'the engine scraped only the pages let through');
    return s;
  }

  async function cancelled(path: string, id: string, pages: number) {
    const calls = engine.calls.length;
    const del = await stack.call('DELETE', path);
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, { success: true, status: 'cancelled' });
    const s = await status(path);
    assert.equal(s.status, 'cancelled');
    assert.equal(s.completed, pages);
    await eventually(() => held(id) === 0, 'the held pages leave the gate with the cancel');
    assert.equal(engine.calls.length, calls, 'the held pages were dropped, not scraped');
    assert.equal((await status(path)).completed, pages);
  }

  test('a crawl stops at N pages and stays scraping, also once the fault is cleared, until cancelled', async () => {
    stack.app.faults.set('a', { stallJobsAfterPages: 5 });
    const start = await stack.call('POST', '/v2/crawl', { body: { url: `${stack.site.url}/`, limit: 30 } });
    assert.equal(start.status, 200, start.text);
    const { id } = start.body as { id: string };
    const path = `/v2/crawl/${id}`;
    // Taken when the job started: clearing the fault now neither wakes this job nor stalls the next.
    stack.app.faults.set('a', undefined);
    await stalled(path, id, 5);

    const other = await stack.call('POST', '/v2/crawl', { body: { url: `${stack.site.url}/`, limit: 8 } });
    assert.equal(other.status, 200, other.text);
    const done = await waitForJob(stack, `/v2/crawl/${(other.body as { id: string }).id}`);
    assert.equal(done.status, 'completed');
    assert.equal(done.docs.length, 8);

    const still = await status(path);
    assert.equal(still.status, 'scraping');
    assert.equal(still.completed, 5);
    await cancelled(path, id, 5);
  });

  test('a batch scrape stops at N pages until cancelled; 0 pages stalls at once', async () => {
    const urls = Array.from({ length: 10 }, (_, i) => `${stack.site.url}/blog/post-${i + 1}`);
    stack.app.faults.set('a', { stallJobsAfterPages: 3 });
    const start = await stack.call('POST', '/v2/batch/scrape', { body: { urls } });
    assert.equal(start.status, 200, start.text);
    const { id } = start.body as { id: string };
    const path = `/v2/batch/scrape/${id}`;
    const s = await stalled(path, id, 3);
    assert.equal(s.total, 10, 'the URLs not scraped are still pending');
    await cancelled(path, id, 3);

    engine.reset();
    stack.app.faults.set('a', { stallJobsAfterPages: 0 });
    const none = await stack.call('POST', '/v2/batch/scrape', { body: { urls: urls.slice(0, 2) } });
    const noneId = (none.body as { id: string }).id;
    await stalled(`/v2/batch/scrape/${noneId}`, noneId, 0);
    await cancelled(`/v2/batch/scrape/${noneId}`, noneId, 0);
  });

  test('the config file takes stallJobsAfterPages per team (an integer >= 0)', () => {
    const file = (n: unknown) => ({ teams: [{ id: 't', apiKeys: ['k'], faults: { stallJobsAfterPages: n } }] });
    assert.equal(configFileSchema.parse(file(4)).teams[0].faults?.stallJobsAfterPages, 4);
    assert.equal(configFileSchema.safeParse(file(-1)).success, false);
    assert.equal(configFileSchema.safeParse(file(1.5)).success, false);
  });
});
