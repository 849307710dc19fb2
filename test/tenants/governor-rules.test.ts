// The fleet governor's rules without Temporal: fair shares between tenants, the spare pass that
// leaves no slot idle, expiry of leases and of waiters that stopped asking, the 429 pause, and
// a renewed lease that had expired is counted again.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { answer, fairShares, grantAll, inUse, newGovernor, nextWake, pause, release, renew, request, status, WAITER_TTL_MS } from '../../src/shared/team-governor-rules.js';

const ask = (tenant: string, key: string, want = 8, ttlMs = 60_000) => ({ tenant, key, want, concurrency: 8, ttlMs });

describe('team governor rules', () => {
  test('a tenant alone gets the whole team; a second tenant gets half when the first job ends', () => {
    const s = newGovernor('team', 8);
    request(s, ask('a', 'a1'), 0);
    request(s, ask('a', 'a2'), 1);
    assert.deepEqual(grantAll(s, 2), ['a1']);
    assert.equal(s.leases.a1.share, 8);
    request(s, ask('b', 'b1'), 3);
    assert.deepEqual(grantAll(s, 4), [], 'nothing is free: jobs cannot shrink');
    assert.deepEqual(Object.fromEntries(fairShares(s)), { a: 4, b: 4 });
    release(s, 'a1');
    // Both tenants hold nothing: the earlier arrival first, each up to its fair share.
    assert.deepEqual(grantAll(s, 5).sort(), ['a2', 'b1']);
    assert.equal(s.leases.a2.share, 4);
    assert.equal(s.leases.b1.share, 4);
    assert.equal(inUse(s), 8);
  });

  test('the tenant holding least is served first; spare slots go to whoever still waits', () => {
    const s = newGovernor('team', 8);
    request(s, ask('a', 'a1', 3), 0);
    grantAll(s, 0);
    request(s, ask('a', 'a2', 8), 1);
    request(s, ask('b', 'b1', 2), 2);
    // fair: a 4, b 4. b holds 0 → b1 gets 2 (its want); a holds 3 → a2 gets its 1 and the 2 no one else is owed.
    assert.deepEqual(grantAll(s, 3), ['b1', 'a2']);
    assert.equal(s.leases.b1.share, 2);
    assert.equal(s.leases.a2.share, 3);
    assert.equal(inUse(s), 8);
  });

  test('more tenants than slots: one slot each to the earliest, the rest wait in line', () => {
    const s = newGovernor('team', 2);
    for (const [i, t] of ['a', 'b', 'c'].entries()) request(s, { ...ask(t, `${t}1`), concurrency: 2 }, i);
    assert.deepEqual(grantAll(s, 3), ['a1', 'b1']);
    assert.deepEqual(answer(s, 'c1'), { granted: false, position: 1, pausedUntil: 0 });
    release(s, 'a1');
    assert.deepEqual(grantAll(s, 4), ['c1']);
  });

  test('a lease not renewed expires; a waiter that stopped asking is dropped', () => {
    const s = newGovernor('team', 8);
    request(s, ask('a', 'a1', 8, 10_000), 0);
    grantAll(s, 0);
    request(s, ask('b', 'b1', 8, 10_000), 1);
    assert.equal(nextWake(s, 1), 10_000);
    assert.ok(renew(s, 'a1', 'a', 8, 5_000));
    assert.deepEqual(grantAll(s, 14_000), []);
    assert.deepEqual(grantAll(s, 15_000), ['b1'], 'a1 expired at 15 s');
    assert.equal(s.expired, 1);
    request(s, ask('c', 'c1'), 15_001);
    grantAll(s, 15_001 + WAITER_TTL_MS + 1);
    assert.equal(s.waiting.c1, undefined);
    assert.equal(status(s).tenants.some((t) => t.tenant === 'c'), false);
  });

  test('a lease renewed after it expired is counted again (its job still runs)', () => {
    const s = newGovernor('team', 4);
    request(s, { ...ask('a', 'a1', 4, 10_000), concurrency: 4 }, 0);
    grantAll(s, 0);
    grantAll(s, 20_000);
    assert.equal(inUse(s), 0);
    assert.equal(renew(s, 'a1', 'a', 4, 20_001), false);
    assert.equal(inUse(s), 4);
  });

  test('a 429 pause holds every grant until it ends', () => {
    const s = newGovernor('team', 8);
    pause(s, 30_000);
    request(s, ask('a', 'a1'), 0);
    assert.deepEqual(grantAll(s, 1), []);
    assert.deepEqual(answer(s, 'a1'), { granted: false, position: 1, pausedUntil: 30_000 });
    assert.equal(nextWake(s, 1), 30_000);
    assert.deepEqual(grantAll(s, 30_000), ['a1']);
  });

  test('overcommit: shares add up to twice the team, no job above the team; tenants split the doubled capacity', () => {
    const s = newGovernor('team', 8);
    const twice = (tenant: string, key: string, want = 8) => ({ ...ask(tenant, key, want), overcommit: 2 });
    request(s, twice('a', 'a1'), 0);
    request(s, twice('a', 'a2'), 1);
    request(s, twice('a', 'a3'), 2);
    // One tenant alone: two jobs, 8 and 6 (the headroom below keeps 2), the third in line.
    assert.deepEqual(grantAll(s, 3), ['a1', 'a2']);
    assert.deepEqual([s.leases.a1.share, s.leases.a2.share], [8, 6]);
    assert.deepEqual(answer(s, 'a3'), { granted: false, position: 1, pausedUntil: 0 });
    request(s, twice('b', 'b1'), 4);
    assert.deepEqual(Object.fromEntries(fairShares(s)), { a: 8, b: 8 });
    release(s, 'a1');
    // b holds nothing and is owed its 8: it goes before a's third job, which gets what is left.
    assert.deepEqual(grantAll(s, 5), ['b1', 'a3']);
    assert.deepEqual([s.leases.b1.share, s.leases.a3.share], [8, 2]);
    assert.deepEqual({ concurrency: status(s).concurrency, capacity: status(s).capacity, inUse: status(s).inUse }, { concurrency: 8, capacity: 16, inUse: 16 });
    // A caller without overcommit (an older worker) asks for the team's own concurrency again.
    request(s, ask('c', 'c1'), 6);
    assert.equal(status(s).capacity, 8);
  });

  test('over-committed, one tenant keeps headroom free: a tenant that arrives starts at once, not when a job ends', () => {
    const s = newGovernor('team', 8);
    const twice = (tenant: string, key: string, want = 8) => ({ ...ask(tenant, key, want), overcommit: 2 });
    for (const [i, key] of ['a1', 'a2', 'a3'].entries()) request(s, twice('a', key), i);
    // Capacity 16, headroom 2 (a quarter of the team): a holds 8 + 6, still above the team's 8.
    assert.deepEqual(grantAll(s, 3), ['a1', 'a2']);
    assert.deepEqual([s.leases.a1.share, s.leases.a2.share], [8, 6]);
    assert.equal(status(s).headroom, 2);
    request(s, twice('b', 'b1'), 4);
    assert.deepEqual(grantAll(s, 4), ['b1'], 'b starts while both of a\'s jobs run');
    assert.equal(s.leases.b1.share, 2);
    assert.equal(inUse(s), 16);
    // Without over-commit there is no headroom: one tenant may hold the whole team.
    const one = newGovernor('team', 8);
    request(one, ask('a', 'a1'), 0);
    grantAll(one, 0);
    assert.equal(one.leases.a1.share, 8);
    assert.equal(status(one).headroom, 0);
    // A governor replaying a history from before the headroom grants as it did then.
    const old = newGovernor('team', 8);
    old.newcomerHeadroom = false;
    for (const [i, key] of ['a1', 'a2'].entries()) request(old, twice('a', key), i);
    grantAll(old, 2);
    assert.deepEqual([old.leases.a1.share, old.leases.a2.share], [8, 8]);
  });
});
