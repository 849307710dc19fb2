// Pure rules of the pipeline: input validation, the credit guard and the support-fix policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { creditsPerPage, fitUnits, interactWorstCase, remaining } from '../../src/workflows/credit-guard.js';
import { parsePipelineInput, PipelineInputError } from '../../src/workflows/input.js';
import { applyFix, decideFix } from '../../src/workflows/support.js';
import { admitStartPage } from '../../src/workflows/stages/crawl.js';

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
