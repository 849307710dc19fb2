import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetryAfterHeader, parseRetryAfterText, retryAfterMs } from '../../packages/client/src/index.js';

test('header: seconds, decimals, HTTP date, past date, garbage', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  assert.equal(parseRetryAfterHeader('25', now), 25_000);
  assert.equal(parseRetryAfterHeader(' 1.5 ', now), 1500);
  assert.equal(parseRetryAfterHeader('Tue, 01 Jan 2030 00:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfterHeader('Mon, 31 Dec 2029 23:00:00 GMT', now), 0);
  assert.equal(parseRetryAfterHeader('soon', now), undefined);
  assert.equal(parseRetryAfterHeader('', now), undefined);
  assert.equal(parseRetryAfterHeader(undefined, now), undefined);
});

test('message text in the forms seen', () => {
  assert.equal(parseRetryAfterText('Rate limit exceeded. Consumed (req/min): 11 ... retry after 25s, resets at Wed Jan 01 2030'), 25_000);
  assert.equal(parseRetryAfterText('please retry after 3 seconds'), 3000);
  assert.equal(parseRetryAfterText('Retry after 500ms'), 500);
  assert.equal(parseRetryAfterText('retry in 2 minutes'), 120_000);
  assert.equal(parseRetryAfterText('Rate limit exceeded'), undefined);
  assert.equal(parseRetryAfterText(undefined), undefined);
});

test('the header wins over the text', () => {
  assert.equal(retryAfterMs('2', 'retry after 25s'), 2000);
  assert.equal(retryAfterMs(undefined, 'retry after 25s'), 25_000);
  assert.equal(retryAfterMs('garbage', 'retry after 25s'), 25_000);
});
