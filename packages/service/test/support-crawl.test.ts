// Support ask on crawls that fail for real against the running service, the demo site and a
// fixture site: each failure is produced, support is asked with the job id, and its
// fixParameters, applied to the original request, must make the crawl succeed.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { TeamConfig } from '../src/core/teams.js';
import { PROBE_MARGIN_MS, type TimeBudgetClock } from '../src/support/time-budget.js';
import { askSupport } from '../src/support/index.js';
import {
  applyFix, ask, checkEnvelope, crawl, startFixtureSite, startSupportStack, team, waitForJob, type FixtureSite, type SupportStack,
} from './support-harness.js';

const features = (ignoreRobotsTxt: boolean): TeamConfig['features'] => ({ ignoreRobotsTxt, zeroDataRetention: false, searchEnterprise: [] });

describe('support ask on crawls', () => {
  let stack: SupportStack;
  let fixture: FixtureSite;
  let site: string;

  before(async () => {
    fixture = await startFixtureSite();
    stack = await startSupportStack({
      teams: [
        team('a', { credits: 100_000, concurrency: 4, features: features(false) }),
        team('e', { credits: 100_000, concurrency: 4, features: features(true) }),
        team('b', { credits: 1_000 }),
      ],
    });
    site = stack.site.url;
  });
  after(async () => {
    await stack?.close();
    await fixture?.close();
  });

  test('includePaths that exclude the start URL: 0 pages, then a fix that keeps the intent', async () => {
    const request = { url: `${site}/blog`, includePaths: ['^/blog/post-'], sitemap: 'skip', limit: 15 };
    const failed = await crawl(stack, request);
    assert.equal(failed.urls.length, 0);

    const { status, envelope } = await ask(stack, { question: 'My crawl of the blog returned no pages at all. Why?', jobId: failed.id });
    assert.equal(status, 200);
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { includePaths: ['^/blog/post-', '^/blog/?$'] });
    assert.equal(envelope.validation?.result, 'success');
    assert.equal(envelope.feedback, null);
    assert.match(envelope.answer, /start URL path \/blog matches none of includePaths/);

    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters));
    assert.equal(fixed.status.status, 'completed');
    assert.ok(fixed.urls.filter((u) => /\/blog\/post-\d+$/.test(u)).length >= 5, fixed.urls.join(' '));
    assert.ok(fixed.urls.every((u) => /\/blog(\/post-\d+)?$/.test(u)), 'the original intent is kept');
  });

  test('includePaths naming a section the site calls differently', async () => {
    const request = { url: `${site}/`, includePaths: ['^/documentation'], limit: 10 };
    const failed = await crawl(stack, request);
    assert.equal(failed.urls.length, 0);
    const { envelope } = await ask(stack, { question: 'The crawl stage failed: the crawl returned no pages. What should I change?', jobId: failed.id });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'medium');
    assert.deepEqual(envelope.fixParameters, { includePaths: ['^/docs', '^/$'] });
    assert.match(envelope.answer, /The site has no \/documentation section; the closest is \/docs/);
    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters));
    assert.ok(fixed.urls.filter((u) => u.includes('/docs')).length >= 5, fixed.urls.join(' '));
  });

  test('excludePaths that match the start URL', async () => {
    const request = { url: `${site}/docs`, excludePaths: ['/docs'], limit: 10 };
    const failed = await crawl(stack, request);
    assert.equal(failed.urls.length, 0);
    const { envelope } = await ask(stack, { question: 'Why is this crawl empty?', jobId: failed.id });
    checkEnvelope(envelope);
    assert.deepEqual(envelope.fixParameters, { excludePaths: [] });
    assert.equal(envelope.confidence, 'high');
    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters));
    assert.ok(fixed.urls.length > 1);
  });

  test('maxDiscoveryDepth 0: one page, then a depth that reaches the site', async () => {
    const request = { url: `${site}/`, maxDiscoveryDepth: 0, sitemap: 'skip', limit: 25 };
    const failed = await crawl(stack, request);
    assert.deepEqual(failed.urls, [`${site}/`]);
    const { envelope } = await ask(stack, { question: 'Why did the crawl stop after one page?', jobId: failed.id });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { maxDiscoveryDepth: 1 });
    assert.match(envelope.validation?.evidence ?? '', /maxDiscoveryDepth 1/);
    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters));
    assert.ok(fixed.urls.length > 5, fixed.urls.join(' '));
  });

  test('a limit smaller than the section', async () => {
    const request = { url: `${site}/docs`, limit: 3 };
    const failed = await crawl(stack, request);
    assert.equal(failed.urls.length, 3);
    const { envelope } = await ask(stack, { question: 'I only got 3 pages but the docs have more', jobId: failed.id });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    const limit = (envelope.fixParameters as { limit: number }).limit;
    const docsPages = stack.site.manifest.entries.filter((e) => e.host === 'main' && e.path.startsWith('/docs/') && e.status === 200).length;
    // A page the site fails (/docs/broken-page, 500) is a document too (metadata.statusCode), as on the real server.
    const docsErrorPages = stack.site.manifest.entries.filter((e) => e.host === 'main' && e.path.startsWith('/docs/') && e.status >= 400).length;
    assert.ok(limit > 3 && limit >= docsPages, `limit ${limit}, docs pages ${docsPages}`);
    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters));
    assert.equal(fixed.urls.length, docsPages + docsErrorPages + 1, 'every docs page, its error pages and /docs itself');
  });

  test('a start URL under a path whose pages are siblings: crawlEntireDomain', async () => {
    const request = { url: `${site}/blog/post-1`, limit: 12 };
    const failed = await crawl(stack, request);
    assert.deepEqual(failed.urls, [`${site}/blog/post-1`]);
    const { envelope } = await ask(stack, { question: 'Only the start page was crawled', jobId: failed.id });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { crawlEntireDomain: true });
    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters));
    assert.equal(fixed.urls.length, 12);
  });

  test('robots.txt blocks the section: no fix for a team without ignoreRobotsTxt, the fix for one with it', async () => {
    const request = { url: `${site}/private/`, limit: 5 };
    const blocked = await crawl(stack, request);
    assert.equal(blocked.urls.length, 0);
    const plain = await ask(stack, { question: 'Why can I not crawl the private area?', jobId: blocked.id });
    checkEnvelope(plain.envelope);
    assert.equal(plain.envelope.confidence, 'high');
    assert.equal(plain.envelope.fixParameters, null);
    assert.match(plain.envelope.answer, /robots\.txt/);
    assert.match(plain.envelope.answer, /not enabled/);

    const enterprise = await crawl(stack, request, 'key-e');
    assert.equal(enterprise.urls.length, 0);
    const { envelope } = await ask(stack, { question: 'Why is the crawl empty?', jobId: enterprise.id }, 'key-e');
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { ignoreRobotsTxt: true });
    assert.equal(envelope.validation?.result, 'success');
    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters), 'key-e');
    assert.deepEqual(fixed.urls.sort(), [`${site}/private/`, `${site}/private/report-1`, `${site}/private/report-2`]);
  });

  test('a site that rate-limits (429): one page at a time with a delay', async () => {
    const request = { url: `${fixture.url}/limited/`, limit: 10 };
    const failed = await crawl(stack, request);
    // The site's 429 answers come back as documents with metadata.statusCode 429 (as on the real
    // server), or in /errors when the engine gave up on the page.
    const errors = await stack.call('GET', `/v2/crawl/${failed.id}/errors`);
    const limited = failed.status.data.some((d) => (d.metadata as { statusCode?: number }).statusCode === 429)
      || errors.body.errors.some((e: { code?: string }) => e.code === 'HTTP_429');
    assert.ok(limited, `no page met the site's 429: ${JSON.stringify(errors.body)}`);
    const { envelope } = await ask(stack, { question: 'Many pages failed with 429', jobId: failed.id });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { maxConcurrency: 1, delay: 1 });
    assert.equal(envelope.validation?.result, 'success');
    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters));
    const after = await stack.call('GET', `/v2/crawl/${fixed.id}/errors`);
    assert.deepEqual(after.body.errors, []);
    assert.equal(fixed.urls.length, 7);
  });

  test('a batch scrape whose slow page times out: the timeout, top-level for a batch', async () => {
    const request = { urls: [`${site}/slow?ms=2000`, `${site}/about`], timeout: 800 };
    const started = await stack.call('POST', '/v2/batch/scrape', { body: request });
    assert.equal(started.status, 200, started.text);
    const id = started.body.id as string;
    await waitForJob(stack, `/v2/batch/scrape/${id}`);
    const errors = await stack.call('GET', `/v2/batch/scrape/${id}/errors`);
    assert.deepEqual(errors.body.errors.map((e: { code?: string }) => e.code), ['SCRAPE_TIMEOUT']);
    const { envelope } = await ask(stack, { question: 'One page of my batch failed', jobId: id });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(Object.keys(envelope.fixParameters ?? {}), ['timeout']);
    const again = await stack.call('POST', '/v2/batch/scrape', { body: applyFix(request, envelope.fixParameters) });
    const status = await waitForJob(stack, `/v2/batch/scrape/${again.body.id}`);
    assert.equal(status.completed, 2);
    assert.deepEqual((await stack.call('GET', `/v2/batch/scrape/${again.body.id}/errors`)).body.errors, []);
  });

  test('a crawl whose pages time out: the timeout inside scrapeOptions, other members kept', async () => {
    const request = { url: `${site}/slow?ms=1500`, limit: 2, sitemap: 'skip', scrapeOptions: { timeout: 500, formats: ['markdown'] } };
    const failed = await crawl(stack, request);
    assert.equal(failed.urls.length, 0);
    const { envelope } = await ask(stack, { question: 'every page failed', jobId: failed.id });
    checkEnvelope(envelope);
    const fix = envelope.fixParameters as { scrapeOptions: { timeout: number; formats: string[] } };
    assert.deepEqual(Object.keys(fix), ['scrapeOptions']);
    assert.deepEqual(fix.scrapeOptions.formats, ['markdown']);
    assert.ok(fix.scrapeOptions.timeout >= 3000);
    const fixed = await crawl(stack, applyFix(request, envelope.fixParameters));
    assert.ok(fixed.urls.length >= 1);
    assert.deepEqual((await stack.call('GET', `/v2/crawl/${fixed.id}/errors`)).body.errors, []);
  });

  test('pages the site itself fails (404/500) are named, with no fix', async () => {
    const job = await crawl(stack, { url: `${site}/docs`, limit: 50 });
    const { envelope } = await ask(stack, { question: 'Some pages of my crawl failed, why?', jobId: job.id });
    checkEnvelope(envelope);
    assert.equal(envelope.fixParameters, null);
    assert.equal(envelope.confidence, 'high');
    assert.match(envelope.answer, /\/docs\/broken-page 500/);
  });

  test("another team's job is out of scope, told apart from nothing", async () => {
    const job = await crawl(stack, { url: `${site}/about`, limit: 1 });
    const { status, envelope } = await ask(stack, { question: 'Why did this crawl fail?', jobId: job.id }, 'key-b');
    assert.equal(status, 200);
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'low');
    assert.equal(envelope.fixParameters, null);
    assert.ok(envelope.feedback && /not in the caller's team's scope/.test(envelope.feedback.blockedBy));
    assert.match(envelope.answer, /No job .* was found in your team's scope/);
    assert.ok(!envelope.answer.includes('/about') && !JSON.stringify(envelope).includes(site), 'nothing of the other team leaks');
    // Also when the id is only mentioned in the question.
    const mentioned = await ask(stack, { question: `What happened to ${job.id}?` }, 'key-b');
    assert.equal(mentioned.envelope.confidence, 'low');
    assert.ok(!JSON.stringify(mentioned.envelope).includes(site));
  });
});

/** The support budget's clock in these tests: it stands still until the test moves it, then fires what is due. */
class ManualClock implements TimeBudgetClock {
  private t = 0;
  private readonly timers = new Set<{ at: number; fn: () => void }>();
  /** Called as each timer is set, with its delay. */
  onTimer: (ms: number) => void = () => {};
  now(): number {
    return this.t;
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + ms, fn };
    this.timers.add(timer);
    this.onTimer(ms);
    return () => { this.timers.delete(timer); };
  }
  moveTo(t: number): void {
    this.t = t;
    for (const timer of [...this.timers].sort((a, b) => a.at - b.at)) {
      if (timer.at > t) break;
      this.timers.delete(timer);
      timer.fn();
    }
  }
}

/** Polls `check` until it holds; the generous deadline only catches what never happens. */
async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

describe('support ask budget', () => {
  const BUDGET_MS = 2500;
  let stack: SupportStack;
  let fixture: FixtureSite;
  // The budget runs on this clock, not the machine's: its time passes only when a test moves it.
  let clock: ManualClock;

  before(async () => {
    fixture = await startFixtureSite();
    stack = await startSupportStack({ teams: [team('a', { credits: 1_000, concurrency: 4 })], config: { supportBudgetMs: BUDGET_MS } });
    const route = stack.app.router.list().find((r) => r.method === 'POST' && r.pattern === '/v2/support/ask');
    assert.ok(route);
    route.handler = (req) => askSupport(stack.ctx, req, { clock });
  });
  beforeEach(() => {
    clock = new ManualClock();
  });
  after(async () => {
    await stack?.close();
    await fixture?.close();
  });

  test('a probe cut short by the budget still leaves time to answer from what it found', async () => {
    const job = await crawl(stack, { url: `${fixture.url}/slowsite/`, limit: 2 });
    assert.equal(job.urls.length, 2);
    const before = fixture.arrived('/slowsite/p/');
    const asked = ask(stack, { question: 'Why only 2 pages?', jobId: job.id });
    // The dry crawl reads 4 slow pages at a time: its 8th request means 4 were read (5 pages
    // with the start page, more than the limit). Then time moves to where probes are cut.
    await until('the dry crawl to read 4 slow pages', () => fixture.arrived('/slowsite/p/') >= before + 8);
    clock.moveTo(BUDGET_MS - PROBE_MARGIN_MS);
    const { status, envelope } = await asked;
    assert.equal(status, 200);
    checkEnvelope(envelope);
    assert.match(envelope.answer, /stopped at its limit of 2 pages, but at least \d+ pages are in scope/);
    assert.match(envelope.validation?.evidence ?? '', /before it ran out of time/);
    // Answered from what the cut probe found, before the budget's end (the clock stood still there).
    assert.equal(envelope.durationMs, BUDGET_MS - PROBE_MARGIN_MS);
  });

  test('past the budget: 504 with the partial envelope', async () => {
    // Testing the fix for a rate-limited site takes three fetches a second apart: longer than the budget.
    const job = await crawl(stack, { url: `${fixture.url}/limited/`, limit: 10 });
    const before = fixture.arrived('/limited/p/');
    // The budget runs out as the probe sets up its first fetch (budget.within: the first timer
    // after the budget's own): the fix is being tested and cannot have been tested yet.
    let timers = 0;
    clock.onTimer = () => {
      if (++timers === 2) queueMicrotask(() => clock.moveTo(BUDGET_MS));
    };
    const { status, envelope } = await ask(stack, { question: 'Pages failed with 429', jobId: job.id });
    assert.equal(status, 504);
    assert.equal(envelope.code, 'SUPPORT_BUDGET_EXCEEDED');
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'low');
    assert.match(envelope.answer, /answered 429 Too Many Requests/);
    assert.deepEqual(envelope.fixParameters, { maxConcurrency: 1, delay: 1 });
    assert.match(envelope.feedback?.blockedBy ?? '', /2500 ms time budget ran out/);
    assert.ok(envelope.feedback!.attempted.some((s) => s.includes('one at a time')));
    // Answered at the budget's end, not once the work was done: the fix was never tested.
    assert.equal(envelope.durationMs, BUDGET_MS);
    assert.equal(envelope.validation?.tested, false);
    assert.ok(fixture.arrived('/limited/p/') - before < 3, 'the probe fetched all its pages before the 504');
  });
});
