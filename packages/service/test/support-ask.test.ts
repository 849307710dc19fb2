// Support ask on scrapes, sessions and the account, each failure produced for real against
// the running service (real engines, Chromium for waitFor and interact) and the demo site.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  LATE_TEXT, applyFix, ask, checkEnvelope, crawl, startFixtureSite, startSupportStack, team, type FixtureSite, type SupportStack,
} from './support-harness.js';

describe('support ask on scrapes and the account', () => {
  let stack: SupportStack;
  let fixture: FixtureSite;
  let site: string;

  before(async () => {
    fixture = await startFixtureSite();
    stack = await startSupportStack({
      teams: [
        team('a', { credits: 100_000, concurrency: 4 }),
        team('b', { credits: 1_000 }),
        team('poor', { credits: 0 }),
        team('rl', { credits: 1_000, rateLimits: { scrape: 2 } }),
        team('fresh', { credits: 1_000 }),
      ],
    });
    site = stack.site.url;
  });
  after(async () => {
    await stack?.close();
    await fixture?.close();
  });

  const scrape = (body: Record<string, unknown>, key = 'key-a') => stack.call('POST', '/v2/scrape', { key, body });

  test('a timeout too small for a slow page (408): a measured and tested timeout', async () => {
    const request = { url: `${site}/slow?ms=2500`, timeout: 1000 };
    const failed = await scrape(request);
    assert.equal(failed.status, 408);
    // The 408 answer has no id: the activity listing has it, and the question's URL finds it too.
    const activity = await stack.call('GET', '/v2/team/activity?endpoint=scrape&limit=1');
    const jobId = activity.body.data[0].id as string;

    const byUrl = await ask(stack, { question: `My scrape of ${request.url} keeps timing out` });
    checkEnvelope(byUrl.envelope);
    const { status, envelope } = await ask(stack, { question: 'Why does this scrape fail?', jobId });
    assert.equal(status, 200);
    checkEnvelope(envelope);
    for (const e of [envelope, byUrl.envelope]) {
      assert.equal(e.confidence, 'high');
      assert.equal(e.validation?.result, 'success');
      const timeout = (e.fixParameters as { timeout: number }).timeout;
      assert.deepEqual(Object.keys(e.fixParameters ?? {}), ['timeout']);
      // The page takes 2.5 s, however loaded the machine; the proposal is about twice what was
      // measured (as the answer states it, to 0.1 s), rounded up to a second: no fixed ceiling.
      const needs = Number(/needs about (\d+(?:\.\d+)?) s/.exec(e.answer)?.[1]) * 1000;
      assert.ok(needs >= 2500, e.answer);
      const proposed = (ms: number) => Math.ceil(Math.max(ms * 2, ms + 2000) / 1000) * 1000;
      assert.ok(timeout >= proposed(needs - 50) && timeout <= proposed(needs + 50), `timeout ${timeout} for ${e.answer}`);
      assert.match(e.answer, /timed out/);
    }
    const fixed = await scrape(applyFix(request, envelope.fixParameters));
    assert.equal(fixed.status, 200, fixed.text);
  });

  test('content built by JavaScript: waitFor, found by rendering for real', async () => {
    const request = { url: `${fixture.url}/late`, formats: ['markdown'] };
    const thin = await scrape(request);
    assert.equal(thin.status, 200);
    assert.ok(!thin.body.data.markdown.includes('late widget'));
    const { envelope } = await ask(stack, { question: 'The markdown of my scrape is empty', jobId: thin.body.data.metadata.scrapeId });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { waitFor: 2000 });
    assert.match(envelope.answer, /builds its content with JavaScript/);
    const fixed = await scrape(applyFix(request, envelope.fixParameters));
    assert.equal(fixed.status, 200);
    assert.ok(fixed.body.data.markdown.includes(LATE_TEXT), fixed.body.data.markdown);
  });

  test('waitFor too short', async () => {
    const request = { url: `${fixture.url}/late`, waitFor: 300 };
    const thin = await scrape(request);
    assert.equal(thin.status, 200);
    assert.ok(!thin.body.data.markdown.includes('late widget'));
    const { envelope } = await ask(stack, { question: 'Content is missing', jobId: thin.body.data.metadata.scrapeId });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { waitFor: 2000 });
    assert.match(envelope.answer, /waitFor 300 ms was too short/);
    const fixed = await scrape(applyFix(request, envelope.fixParameters));
    assert.ok(fixed.body.data.markdown.includes(LATE_TEXT));
  });

  test('invalid options (400): the request repaired and validated again', async () => {
    const request = { url: `${site}/about`, formats: ['markdwon', 'links'], timout: 20_000 };
    const refused = await scrape(request);
    assert.equal(refused.status, 400);
    const { envelope } = await ask(stack, {
      question: 'My scrape request is rejected with 400 Bad Request',
      context: { endpoint: 'POST /v2/scrape', request, response: refused.body },
    });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { formats: ['markdown', 'links'], timout: null, timeout: 20_000 });
    assert.equal(envelope.validation?.result, 'success');
    const fixed = await scrape(applyFix(request, envelope.fixParameters));
    assert.equal(fixed.status, 200, fixed.text);

    // A crawl request, given in the question text.
    const crawlRequest = { url: `${site}/docs`, includePath: ['^/docs'], limit: '4' };
    const crawlRefused = await stack.call('POST', '/v2/crawl', { body: crawlRequest });
    assert.equal(crawlRefused.status, 400);
    const second = await ask(stack, { question: `POST /v2/crawl answers 400 for ${JSON.stringify(crawlRequest)}` });
    checkEnvelope(second.envelope);
    assert.deepEqual(second.envelope.fixParameters, { includePath: null, limit: 4, includePaths: ['^/docs'] });
    const job = await crawl(stack, applyFix(crawlRequest, second.envelope.fixParameters));
    assert.equal(job.status.status, 'completed');
    assert.equal(job.urls.length, 4);
  });

  test('a format that needs a model (503 AI_NOT_CONFIGURED, no model configured)', async () => {
    const request = { url: `${site}/docs/guide-2`, formats: ['summary', 'links'] };
    const refused = await scrape(request);
    assert.equal(refused.status, 503);
    const { envelope } = await ask(stack, { question: `Scraping ${request.url} fails with 503` });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.deepEqual(envelope.fixParameters, { formats: ['links'] });
    assert.match(envelope.answer, /refused \(503 AI_NOT_CONFIGURED\) because the format summary needs an AI model/);
    const fixed = await scrape(applyFix(request, envelope.fixParameters));
    assert.equal(fixed.status, 200);
  });

  test('no credits left (402): explained, nothing to change in the request', async () => {
    const refused = await scrape({ url: `${site}/about` }, 'key-poor');
    assert.equal(refused.status, 402);
    const { envelope } = await ask(stack, { question: 'Why do all my scrapes fail with 402?' }, 'key-poor');
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.equal(envelope.fixParameters, null);
    assert.match(envelope.answer, /0 credits left of its 0/);
    assert.match(envelope.answer, /402/);
  });

  test("the team's rate limit (429): explained from the team's limits", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await scrape({ url: `${site}/about` }, 'key-rl')).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const { envelope } = await ask(stack, { question: 'My scrapes get 429 Too Many Requests', context: { status: 429 } }, 'key-rl');
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.equal(envelope.fixParameters, null);
    assert.match(envelope.answer, /2 scrape requests per minute/);
  });

  test('a destroyed interact session (410): rerun the scrape', async () => {
    const request = { url: `${site}/docs/guide-1` };
    const first = await scrape(request);
    const id = first.body.data.metadata.scrapeId as string;
    const ran = await stack.call('POST', `/v2/scrape/${id}/interact`, { body: { code: '1 + 1' } });
    assert.equal(ran.status, 200, ran.text);
    assert.equal((await stack.call('DELETE', `/v2/scrape/${id}/interact`)).status, 200);
    const gone = await stack.call('POST', `/v2/scrape/${id}/interact`, { body: { code: '1 + 1' } });
    assert.equal(gone.status, 410);

    const { envelope } = await ask(stack, { question: 'interact answers 410 now', jobId: id });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.equal(envelope.fixParameters, null);
    assert.match(envelope.answer, /was destroyed at .* because it was stopped by a DELETE call/);
    assert.match(envelope.answer, /Rerun the scrape/);

    const again = await scrape(applyFix(request, envelope.fixParameters));
    const newId = again.body.data.metadata.scrapeId as string;
    const works = await stack.call('POST', `/v2/scrape/${newId}/interact`, { body: { code: '1 + 1' } });
    assert.equal(works.status, 200);
    assert.equal(works.body.result, '2');
    await stack.call('DELETE', `/v2/scrape/${newId}/interact`);
  });

  test("another team's scrape is out of scope; no job at all is said plainly", async () => {
    const own = await scrape({ url: `${site}/shop` });
    const id = own.body.data.metadata.scrapeId as string;
    const other = await ask(stack, { question: 'What went wrong?', jobId: id }, 'key-b');
    checkEnvelope(other.envelope);
    assert.equal(other.envelope.confidence, 'low');
    assert.equal(other.envelope.fixParameters, null);
    assert.ok(!JSON.stringify(other.envelope).includes('/shop'));

    const nothing = await ask(stack, { question: 'Something is wrong with my account' }, 'key-fresh');
    checkEnvelope(nothing.envelope);
    assert.equal(nothing.envelope.confidence, 'low');
    assert.match(nothing.envelope.feedback?.blockedBy ?? '', /no job to diagnose/);
  });

  test('bad bodies are 400; no token is 401', async () => {
    assert.equal((await stack.call('POST', '/v2/support/ask', { body: { question: '' } })).status, 400);
    assert.equal((await stack.call('POST', '/v2/support/ask', { body: { question: 'x', extra: 1 } })).status, 400);
    assert.equal((await stack.call('POST', '/v2/support/ask', { body: { question: 'x'.repeat(8001) } })).status, 400);
    assert.equal((await stack.call('POST', '/v2/support/ask', { body: '{"question":', key: 'key-a' })).status, 400);
    assert.equal((await stack.call('POST', '/v2/support/ask', { body: { question: 'x' }, key: null })).status, 401);
  });
});

describe('support ask on expired results', () => {
  let stack: SupportStack;
  // The service's clock stands still unless moved: a result expires exactly when the test says.
  let clock = Date.now();
  before(async () => {
    stack = await startSupportStack({ teams: [team('a', { credits: 1_000 })], config: { jobTtlMs: 1500 }, now: () => clock });
  });
  after(() => stack?.close());

  test('a scrape read after its results expired (404): rerun it', async () => {
    const request = { url: `${stack.site.url}/about` };
    const first = await stack.call('POST', '/v2/scrape', { body: request });
    const id = first.body.data.metadata.scrapeId as string;
    clock += 1700;
    assert.equal((await stack.call('GET', `/v2/scrape/${id}`)).status, 404);
    const { envelope } = await ask(stack, { question: 'GET of my scrape answers 404 Job not found', jobId: id });
    checkEnvelope(envelope);
    assert.equal(envelope.confidence, 'high');
    assert.equal(envelope.fixParameters, null);
    assert.match(envelope.answer, /is no longer stored: results are kept for 2 seconds/);
    const again = await stack.call('POST', '/v2/scrape', { body: applyFix(request, envelope.fixParameters) });
    assert.equal(again.status, 200);
    assert.equal((await stack.call('GET', `/v2/scrape/${again.body.data.metadata.scrapeId}`)).status, 200);
  });
});
