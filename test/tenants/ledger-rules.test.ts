// A tenant's monthly ledger: holds before spending, settlements once per key, the month turning,
// and holds a dead run never settled expiring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOLD_TTL_MS, newLedger, reserve, settle, usage } from '../../src/shared/tenant-ledger-rules.js';

const NOV = Date.UTC(2026, 10, 10);

test('without a budget: every reservation is granted, usage is counted, nothing is left-limited', () => {
  const l = newLedger('acme', NOV);
  assert.deepEqual(reserve(l, 'run-1/crawl', 500, NOV), { granted: true, left: null });
  assert.equal(settle(l, 'run-1/crawl', 120, NOV).used, 120);
  assert.deepEqual(usage(l, NOV), { tenant: 'acme', month: '2026-11', budget: null, used: 120, held: 0, left: null });
});

test('with a budget: holds count against it until settled; a hold that does not fit is refused with what is left', () => {
  const l = newLedger('acme', NOV);
  l.budget = 100;
  assert.deepEqual(reserve(l, 'a/crawl', 60, NOV), { granted: true, left: 40 });
  assert.deepEqual(reserve(l, 'b/crawl', 50, NOV), { granted: false, left: 40 });
  assert.deepEqual(reserve(l, 'b/crawl', 40, NOV), { granted: true, left: 0 });
  // The same key again replaces its own hold (a retried reservation does not hold twice).
  assert.deepEqual(reserve(l, 'b/crawl', 40, NOV), { granted: true, left: 0 });
  // A stage that spent less than its hold gives the rest back when it settles.
  assert.equal(settle(l, 'a/crawl', 25, NOV).left, 100 - 25 - 40);
  // A retried settlement counts once.
  assert.equal(settle(l, 'a/crawl', 25, NOV).used, 25);
  assert.equal(usage(l, NOV, 'b/crawl').left, 75, 'a run reading for its own stage does not count its own hold');
});

test('a new month starts from zero and keeps the old one in the history', () => {
  const l = newLedger('acme', NOV);
  l.budget = 100;
  settle(l, 'a/crawl', 90, NOV);
  reserve(l, 'b/crawl', 10, NOV);
  const dec = Date.UTC(2026, 11, 1, 0, 0, 1);
  assert.deepEqual(usage(l, dec), { tenant: 'acme', month: '2026-12', budget: 100, used: 0, held: 0, left: 100 });
  assert.deepEqual(l.history, [{ month: '2026-11', used: 90 }]);
});

test('a hold never settled (its run died) expires after HOLD_TTL_MS', () => {
  const l = newLedger('acme', NOV);
  l.budget = 100;
  reserve(l, 'dead/crawl', 100, NOV);
  assert.equal(usage(l, NOV + HOLD_TTL_MS).left, 0);
  assert.equal(usage(l, NOV + HOLD_TTL_MS + 1).left, 100);
});
