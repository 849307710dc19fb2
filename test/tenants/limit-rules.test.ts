// A tenant's limits on its ledger: the sliding hour of credits (settled and held), when the window
// frees, slots of runs in flight with a line (first come first), places in line that stop asking
// expiring, and the default for all tenants against a tenant's own setting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newLedger, reserve, settle } from '../../src/shared/tenant-ledger-rules.js';
import { acquireSlot, effectiveLimits, HOUR_MS, hourFreesAt, LINE_TTL_MS, limitsProblem, limitsView, MINUTE_MS, releaseSlot, runsToWake } from '../../src/shared/tenant-limit-rules.js';

const T0 = Date.UTC(2026, 10, 10, 12, 0, 0);

test('defaults apply where the tenant has no setting of its own; null in its own setting is "no limit"', () => {
  const l = newLedger('acme', T0);
  assert.deepEqual(effectiveLimits(l), { maxRunsInFlight: null, creditsPerHour: null });
  l.defaults = { maxRunsInFlight: 3, creditsPerHour: 500 };
  assert.deepEqual(effectiveLimits(l), { maxRunsInFlight: 3, creditsPerHour: 500 });
  l.limits = { creditsPerHour: 60 };
  assert.deepEqual(effectiveLimits(l), { maxRunsInFlight: 3, creditsPerHour: 60 });
  l.limits = { maxRunsInFlight: null };
  assert.deepEqual(effectiveLimits(l), { maxRunsInFlight: null, creditsPerHour: 500 });
});

test('credits per hour: holds and settled credits count; a hold beyond the hour is refused with what is left and when it frees', () => {
  const l = newLedger('acme', T0);
  l.limits = { creditsPerHour: 60 };
  assert.deepEqual(reserve(l, 'a/crawl', 40, T0), { granted: true, left: 20 });
  const refused = reserve(l, 'b/crawl', 30, T0);
  assert.equal(refused.granted, false);
  assert.equal(refused.left, 20);
  // Only a's hold stands in the way: it frees when a settles, not at a time.
  assert.deepEqual(refused.hourBound, { perHour: 60 });
  settle(l, 'a/crawl', 35, T0 + 10_000);
  // a's 35 credits stay in the window for an hour from the end of the minute they settled in.
  const minuteEnd = Math.ceil((T0 + 10_001) / MINUTE_MS) * MINUTE_MS;
  const again = reserve(l, 'b/crawl', 30, T0 + 20_000);
  assert.deepEqual(again, { granted: false, left: 25, hourBound: { perHour: 60, freesAt: minuteEnd + HOUR_MS } });
  assert.equal(hourFreesAt(l, T0 + 20_000, 25, 'b/crawl'), T0 + 20_000, 'what fits now fits now');
  assert.equal(limitsView(l, T0 + 20_000).creditsThisHour, 35);
  // Sliding: at the minute's end plus an hour the 35 leave the window.
  assert.equal(reserve(l, 'b/crawl', 30, minuteEnd + HOUR_MS - 1).granted, false);
  assert.deepEqual(reserve(l, 'b/crawl', 30, minuteEnd + HOUR_MS), { granted: true, left: 30 });
});

test('the monthly budget and the hour: the smaller binds, and a refusal says which', () => {
  const l = newLedger('acme', T0);
  l.budget = 50;
  l.limits = { creditsPerHour: 100 };
  const monthly = reserve(l, 'a/crawl', 60, T0);
  assert.deepEqual(monthly, { granted: false, left: 50 }, 'the budget binds: no hourBound');
  l.budget = 1000;
  const hourly = reserve(l, 'a/crawl', 160, T0);
  assert.equal(hourly.left, 100);
  assert.ok(hourly.hourBound, 'the hour binds');
  const view = limitsView(l, T0);
  assert.equal(view.hourLeft, 100);
});

test('slots: at most maxRunsInFlight hold one; the others wait in line, first come first; a release lets the next in', () => {
  const l = newLedger('acme', T0);
  l.limits = { maxRunsInFlight: 2 };
  assert.equal(acquireSlot(l, 'r1', T0).granted, true);
  assert.equal(acquireSlot(l, 'r2', T0).granted, true);
  const r3 = acquireSlot(l, 'r3', T0);
  assert.deepEqual({ granted: r3.granted, position: r3.position, runsInFlight: r3.runsInFlight, limit: r3.limit }, { granted: false, position: 1, runsInFlight: 2, limit: 2 });
  assert.deepEqual(r3.holders, ['r1', 'r2']);
  const r4 = acquireSlot(l, 'r4', T0);
  assert.equal(r4.position, 2);
  assert.deepEqual(r4.holders, ['r1', 'r2', 'r3'], 'the runs ahead in line are checked too');
  assert.equal(acquireSlot(l, 'r1', T0).granted, true, 'asking again while holding is granted');
  assert.deepEqual(runsToWake(l), []);
  releaseSlot(l, 'r1');
  assert.deepEqual(runsToWake(l), ['r3'], 'the first in line is told, not the second');
  assert.equal(acquireSlot(l, 'r4', T0).granted, false, 'r4 cannot pass r3');
  assert.equal(acquireSlot(l, 'r3', T0).granted, true);
  assert.deepEqual(limitsView(l, T0).runsInFlight, 2);
  // A cancelled run in line leaves it.
  releaseSlot(l, 'r4');
  assert.equal(limitsView(l, T0).waiting, 0);
});

test('a run in line that stopped asking is dropped; a raised limit wakes as many as it frees', () => {
  const l = newLedger('acme', T0);
  l.limits = { maxRunsInFlight: 1 };
  acquireSlot(l, 'r1', T0);
  acquireSlot(l, 'dead', T0);
  acquireSlot(l, 'r3', T0 + 60_000);
  assert.equal(acquireSlot(l, 'r3', T0 + LINE_TTL_MS + 1).position, 1, 'dead stopped asking: r3 is first');
  acquireSlot(l, 'r4', T0 + LINE_TTL_MS + 1);
  l.limits = { maxRunsInFlight: 3 };
  assert.deepEqual(runsToWake(l), ['r3', 'r4']);
  l.limits = { maxRunsInFlight: null };
  assert.equal(acquireSlot(l, 'r4', T0 + LINE_TTL_MS + 2).granted, true, 'no limit: granted');
});

test('limit settings are checked: one message naming the field and the rule', () => {
  assert.equal(limitsProblem({ maxRunsInFlight: 2, creditsPerHour: null }), undefined);
  assert.match(limitsProblem({ maxRunsInFlight: 0 }) ?? '', /^maxRunsInFlight: must be a whole number from 1/);
  assert.match(limitsProblem({ creditsPerHour: 1.5 }) ?? '', /^creditsPerHour: must be a whole number, 0 or more/);
  assert.match(limitsProblem({ runs: 1 } as never) ?? '', /^runs: not a limit/);
});
