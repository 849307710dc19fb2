// The 5xx schedule (`errorEvery`): how many requests fail depends on the count of eligible
// requests only, never on a random draw or on how requests interleave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TeamFaultInjector } from '../src/faults/injector.js';
import { pickRequestFault } from '../src/faults/request-faults.js';
import type { FaultConfig } from '../src/core/faults.js';

const noTeams = { byId: () => undefined };
const neverRandom = () => { throw new Error('the schedule must not draw'); };
const route = { method: 'GET', pattern: '/v2/crawl/:id', group: 'crawl_status' };

function failures(injector: TeamFaultInjector, n: number, now = 0): number[] {
  const failed: number[] = [];
  for (let i = 1; i <= n; i++) {
    const fault = pickRequestFault(injector.get('t'), route, now, () => injector.errorDue('t'));
    if (fault?.kind === 'error') failed.push(i);
  }
  return failed;
}

test('errorEvery fails exactly every k-th eligible request, shifted by errorOffset', () => {
  const injector = new TeamFaultInjector(noTeams, neverRandom);
  injector.set('t', { errorEvery: 5 });
  assert.deepEqual(failures(injector, 23), [5, 10, 15, 20]);
  injector.set('t', { errorEvery: 5, errorOffset: 3 });
  assert.deepEqual(failures(injector, 12), [2, 7, 12]);
});

test('errorEvery: requests met by a storm are not eligible, and toggling a storm keeps the count', () => {
  const injector = new TeamFaultInjector(noTeams, neverRandom);
  const base: FaultConfig = { errorEvery: 3, errorStatus: 503 };
  injector.set('t', base);
  assert.deepEqual(failures(injector, 2), []);
  injector.set('t', { ...base, rateLimitStorm: { until: 1_000, retryAfterSec: 1 } });
  const stormed = pickRequestFault(injector.get('t'), route, 500, () => injector.errorDue('t'));
  assert.equal(stormed?.kind, 'rate_limit_storm');
  // The storm is over (now ≥ until): the 3rd eligible request fails, with the configured status.
  const third = pickRequestFault(injector.get('t'), route, 1_000, () => injector.errorDue('t'));
  assert.equal(third?.kind, 'error');
  assert.equal(third?.error.status, 503);
  injector.set('t', { errorEvery: 2 });
  assert.deepEqual(failures(injector, 4), [2, 4], 'a new schedule counts from 1 again');
});

test('errorEvery applies only to the routes listed', () => {
  const injector = new TeamFaultInjector(noTeams, neverRandom);
  injector.set('t', { errorEvery: 1, routes: ['POST /v2/crawl'] });
  assert.equal(pickRequestFault(injector.get('t'), route, 0, () => injector.errorDue('t')), undefined);
  const crawl = { method: 'POST', pattern: '/v2/crawl', group: 'crawl' };
  assert.equal(pickRequestFault(injector.get('t'), crawl, 0, () => injector.errorDue('t'))?.kind, 'error');
});
