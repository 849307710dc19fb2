// Pure rules of the pipeline: input validation, the credit guard and the support-fix policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { creditsPerPage, fitUnits, interactWorstCase, remaining } from '../../src/workflows/credit-guard.js';
import { formatIssues, interactRequestSchema } from '../../packages/contract/src/index.js';
import { DEFAULT_FIXABLE_FIELDS, parsePipelineInput, PipelineInputError } from '../../src/workflows/input.js';
import { applyFix, decideFix, supportQuestion } from '../../src/workflows/support.js';
import { admitStartPage } from '../../src/workflows/stages/crawl.js';

/** These inputs name public test hosts; the address rule is tested in test/hostile. */
const PUBLIC_ONLY = { allowPrivateAddresses: false };

const answer = (confidence: 'high' | 'medium' | 'low', fixParameters: Record<string, unknown> | null) => ({
  answer: 'x', confidence, fixParameters, validation: null, durationMs: 1,
});

test('pipeline input is validated with the client schemas, naming field and rule', () => {
  const bad: Array<[unknown, RegExp]> = [
    [{ url: 'ftp://x' }, /url/],
    [{ url: 'http://a.test', crawl: { limit: 0 } }, /crawl\.limit/],
    [{ url: 'http://a.test', crawl: { includePaths: ['(['] } }, /crawl\.includePaths\.0.*regular expression/],
    [{ url: 'http://a.test', crawl: { webhook: 'http://x' } }, /crawl/],
    [{ url: 'http://a.test', interact: { match: '.', code: 'x', prompt: 'y' } }, /exactly one of code or prompt/],
    [{ url: 'http://a.test', budget: { credits: -1 } }, /budget\.credits/],
    [{ url: 'http://a.test', stages: { nope: false } }, /stages/],
    [{ url: 'http://a.test', mode: 'both' }, /mode/],
  ];
  for (const [input, message] of bad) {
    assert.throws(() => parsePipelineInput(input, { allowPrivateAddresses: false }), (err: unknown) => err instanceof PipelineInputError && message.test(err.message), JSON.stringify(input));
  }
  const ok = parsePipelineInput({ url: 'http://a.test/', budget: { credits: 10 } }, { allowPrivateAddresses: false });
  assert.equal(ok.mode, 'crawl');
  assert.equal(ok.budget?.strategy, 'clamp');
});

test('the interact stage takes its request fields and rules from the contract', () => {
  // Each body is refused by the contract; the stage refuses it with the same messages.
  const bodies = [{ code: 'x', language: 'ruby' }, { code: 'x', timeout: 0 }, { code: '' }, { code: 'x', prompt: 'y' }, {}];
  for (const body of bodies) {
    const contract = interactRequestSchema.safeParse(body);
    assert.ok(!contract.success, JSON.stringify(body));
    const expected = formatIssues(contract.error).map((i) => i.message).sort();
    assert.throws(
      () => parsePipelineInput({ url: 'http://a.test', interact: { match: '.', ...body } }, PUBLIC_ONLY),
      (err: unknown) => err instanceof PipelineInputError && assert.deepEqual(err.issues.map((i) => i.message).sort(), expected) === undefined,
      JSON.stringify(body),
    );
  }
  // A support fix may change every request field, and only those.
  assert.deepEqual([...DEFAULT_FIXABLE_FIELDS.interact].sort(), Object.keys(interactRequestSchema.shape).filter((k) => k !== 'origin' && k !== 'integration').sort());
});

test('credit guard fits, clamps or refuses', () => {
  assert.deepEqual(fitUnits(100, 1, 500), { kind: 'fits', units: 100 });
  assert.deepEqual(fitUnits(100, 1, 40), { kind: 'clamped', units: 40, from: 100 });
  assert.deepEqual(fitUnits(100, 5, 4), { kind: 'none' });
  assert.deepEqual(fitUnits(100, 1, Number.POSITIVE_INFINITY), { kind: 'fits', units: 100 });
  assert.equal(creditsPerPage(undefined), 1);
  // The contract's price table (the service bills 1 credit a page whatever the formats; the
  // reference states no JSON or summary surcharge).
  assert.equal(creditsPerPage({ formats: ['markdown', { type: 'json' }] }), 1);
  assert.equal(creditsPerPage({ formats: ['summary'] }), 1);
  assert.equal(interactWorstCase(30, false), 1 + 2 * 2);
  assert.equal(interactWorstCase(30, true), 1 + 2 * 7);
  assert.equal(remaining({ budget: 100, spent: 30, byStage: {}, events: [] }, 50), 50);
  assert.equal(remaining({ budget: null, spent: 30, byStage: {}, events: [] }), Number.POSITIVE_INFINITY);
});

test('support fixes apply only with enough confidence and allowed fields', () => {
  const config = parsePipelineInput({ url: 'http://a.test/' }, { allowPrivateAddresses: false });
  assert.equal(decideFix(config, 'crawl', answer('high', { includePaths: ['^/docs'] })).apply, true);
  assert.equal(decideFix(config, 'crawl', answer('medium', { limit: 10 })).apply, true);
  assert.equal(decideFix(config, 'crawl', answer('low', { limit: 10 })).apply, false);
  assert.match(decideFix(config, 'crawl', answer('high', { url: 'http://evil.test/' })).why, /not allowed.*url/);
  assert.equal(decideFix(config, 'crawl', answer('high', null)).apply, false);
  const strict = parsePipelineInput({ url: 'http://a.test/', support: { minConfidence: 'high' } }, { allowPrivateAddresses: false });
  assert.equal(decideFix(strict, 'crawl', answer('medium', { limit: 10 })).apply, false);
  assert.deepEqual(applyFix({ includePaths: ['x'], limit: 5 }, { includePaths: ['^/docs'], limit: null }), { includePaths: ['^/docs'] });
});

test('a selection-derived crawl admits its start page', () => {
  assert.deepEqual(admitStartPage('http://a.test/', ['^/docs']), ['^/docs', '^/$']);
  assert.deepEqual(admitStartPage('http://a.test/docs', ['^/docs']), ['^/docs']);
  assert.deepEqual(admitStartPage('http://a.test/a.b', ['^/x']), ['^/x', '^/a\\.b$']);
});

test('a support question names the failed stage\'s job and the site, so the answer can investigate that job', () => {
  const job = '0190a7a0-0000-7000-8000-00000000abcd';
  const lost = supportQuestion({ stage: 'crawl', reason: 'not_found: Job not found', jobId: job, url: 'http://a.test/' });
  assert.equal(lost, `The crawl stage of my pipeline (crawl job ${job} on http://a.test/) failed: not_found: Job not found. What should I change?`);
  assert.match(supportQuestion({ stage: 'batch', reason: 'x', jobId: job, url: 'http://a.test/' }), new RegExp(`batch scrape job ${job} on http://a\\.test/`));
  // No job started (the start itself was refused): the site still names what failed.
  assert.match(supportQuestion({ stage: 'crawl', reason: 'payment_required: out of credits', url: 'http://a.test/' }), /\(run on http:\/\/a\.test\/\) failed: payment_required/);
  assert.equal(supportQuestion({ stage: 'crawl', reason: 'r'.repeat(9000), jobId: job, url: 'http://a.test/' }).length, 8000);
});
