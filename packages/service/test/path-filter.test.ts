// Crawl patterns come from API callers: the service runs them in linear time (RE2), so a
// pattern that makes a backtracking engine run for minutes is answered at once, and a construct
// only a backtracking engine has is refused with a 400 naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PathFilter } from '../src/crawler/path-filter.js';
import { HttpError } from '../src/core/http-error.js';

test('a catastrophic-backtracking pattern is matched in linear time', { timeout: 60_000 }, () => {
  // With `new RegExp`, 2^5000 ways to split the run of a's before the final b: it would never end.
  const filter = new PathFilter({ includePaths: ['^/(a+)+$'] });
  assert.equal(filter.matches(new URL(`http://site.test/${'a'.repeat(5_000)}b`)), false);
  assert.equal(filter.matches(new URL(`http://site.test/${'a'.repeat(5_000)}`)), true);
});

test('includes and excludes keep their meaning: unanchored, on the path, excludes win', () => {
  const filter = new PathFilter({ includePaths: ['^/blog/'], excludePaths: ['draft'] });
  assert.equal(filter.matches(new URL('http://site.test/blog/one')), true);
  assert.equal(filter.matches(new URL('http://site.test/blog/draft-two')), false);
  assert.equal(filter.excluded(new URL('http://site.test/blog/draft-two')), true);
  assert.equal(filter.matches(new URL('http://site.test/about')), false);
  const full = new PathFilter({ includePaths: ['^http://site\\.test/blog'], regexOnFullURL: true });
  assert.equal(full.matches(new URL('http://site.test/blog/one')), true);
});

test('lookaround, backreferences and invalid patterns are a 400 naming the field', () => {
  const cases: Array<[Record<string, string[]>, RegExp]> = [
    [{ includePaths: ['^/(?=blog)'] }, /includePaths\.0 lookahead \(\?= is not supported/],
    [{ excludePaths: ['/x', '(a)\\1'] }, /excludePaths\.1 a backreference/],
    [{ includePaths: ['(unclosed'] }, /includePaths\.0 must be a valid regular expression/],
  ];
  for (const [options, message] of cases) {
    assert.throws(() => new PathFilter(options), (err: unknown) => {
      assert.ok(err instanceof HttpError);
      assert.equal(err.status, 400);
      assert.match(err.message, message);
      return true;
    });
  }
});
