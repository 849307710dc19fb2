// The exclude patterns a recovery crawl leaves the lost job's stored pages out with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PATTERN_LENGTH } from '../../packages/contract/src/index.js';
import { exactPatterns } from '../../src/workflows/stages/recover.js';

test('exact, escaped paths packed into alternations', () => {
  const { patterns, left } = exactPatterns(['http://h/a', 'http://h/b.html?x=1', 'http://h/a/'], 100);
  assert.deepEqual(patterns, ['^(/a|/b\\.html|/a/)$']);
  assert.equal(left, 0);
  const re = new RegExp(patterns[0]);
  assert.ok(re.test('/b.html') && !re.test('/bxhtml') && !re.test('/a/b'));
});

test('each pattern within the contract length; what does not fit the room is counted as left', () => {
  const urls = Array.from({ length: 300 }, (_, i) => `http://h/section-${i}/page-with-a-long-name-${i}`);
  const all = exactPatterns(urls, 100);
  assert.equal(all.left, 0);
  assert.ok(all.patterns.every((p) => p.length <= MAX_PATTERN_LENGTH));
  const covered = urls.filter((u) => all.patterns.some((p) => new RegExp(p).test(new URL(u).pathname)));
  assert.equal(covered.length, 300);
  const tight = exactPatterns(urls, 2);
  assert.equal(tight.patterns.length, 2);
  const inTwo = urls.filter((u) => tight.patterns.some((p) => new RegExp(p).test(new URL(u).pathname))).length;
  assert.equal(tight.left, 300 - inTwo);
  assert.deepEqual(exactPatterns(urls, 0), { patterns: [], left: 300 });
});
