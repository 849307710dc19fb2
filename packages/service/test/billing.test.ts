// Prices and the credit ledger: monthly plans, per-key history, the 402 guard.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requireCredits } from '../src/billing/guard.js';
import { MemoryCreditLedger } from '../src/billing/ledger.js';
import { monthsBetween } from '../src/billing/periods.js';
import { browserCredits, mapCredits, scrapeCredits, searchCredits } from '../src/billing/prices.js';
import { createTeamRegistry } from '../src/config/teams.js';
import { HttpError } from '../src/core/http-error.js';
import { team } from './platform-helpers.js';

describe('prices', () => {
  test('scrape, map', () => {
    assert.equal(scrapeCredits(), 1);
    assert.equal(scrapeCredits(7), 7);
    assert.equal(mapCredits(), 1);
  });

  test('search per started block of 10 results; enterprise rates; scraped results', () => {
    assert.equal(searchCredits({ results: 0 }), 0);
    assert.equal(searchCredits({ results: 10 }), 2);
    assert.equal(searchCredits({ results: 11 }), 4);
    assert.equal(searchCredits({ results: 10, enterprise: ['anon'] }), 2);
    assert.equal(searchCredits({ results: 10, enterprise: ['zdr'] }), 10);
    assert.equal(searchCredits({ results: 25, enterprise: ['anon', 'zdr'] }), 30);
    assert.equal(searchCredits({ results: 5, scrapedPages: 5 }), 7);
  });

  test('browser minutes: prorated by the second, at least a minute, 7/min with a prompt', () => {
    assert.equal(browserCredits(0), 2);
    assert.equal(browserCredits(30_000), 2);
    assert.equal(browserCredits(90_000), 3);
    assert.equal(browserCredits(61_000), 2.03);
    assert.equal(browserCredits(60_000, { promptUsed: true }), 7);
    assert.equal(browserCredits(120_000, { promptUsed: true }), 14);
  });
});

describe('credit ledger', () => {
  const jan15 = Date.UTC(2026, 0, 15, 12);
  const mar02 = Date.UTC(2026, 2, 2, 8);

  function setup() {
    let clock = jan15;
    const teams = createTeamRegistry([team('a', { apiKeys: ['k1', 'k2'], credits: 100 }), team('b', { credits: 5 })]);
    const ledger = new MemoryCreditLedger(teams, () => clock);
    return { ledger, teams, setClock: (t: number) => { clock = t; } };
  }

  test('remaining and usage follow the calendar month', () => {
    const { ledger, setClock } = setup();
    ledger.charge({ teamId: 'a', apiKey: 'k1', credits: 30, reason: 'crawl', jobId: 'j1' });
    ledger.charge({ teamId: 'a', apiKey: 'k2', credits: 2.5, reason: 'browser' });
    ledger.charge({ teamId: 'a', apiKey: 'k1', credits: 0, reason: 'nothing' });
    assert.equal(ledger.remaining('a'), 67.5);
    assert.equal(ledger.remaining('b'), 5);
    assert.equal(ledger.chargedForJob('j1'), 30);
    assert.deepEqual(ledger.usage('a'), {
      remainingCredits: 67.5,
      planCredits: 100,
      billingPeriodStart: '2026-01-01T00:00:00.000Z',
      billingPeriodEnd: '2026-01-31T23:59:59.999Z',
    });
    setClock(mar02);
    assert.equal(ledger.remaining('a'), 100);
    assert.equal(ledger.usage('a').billingPeriodStart, '2026-03-01T00:00:00.000Z');
  });

  test('historical periods month by month, in total and by API key', () => {
    const { ledger, setClock } = setup();
    ledger.charge({ teamId: 'a', apiKey: 'k1', credits: 10, reason: 'scrape' });
    ledger.charge({ teamId: 'a', apiKey: 'k2', credits: 4, reason: 'scrape' });
    ledger.charge({ teamId: 'b', apiKey: 'key-b', credits: 3, reason: 'scrape' });
    setClock(mar02);
    ledger.charge({ teamId: 'a', apiKey: 'k2', credits: 6, reason: 'map' });
    ledger.charge({ teamId: 'a', apiKey: 'k1', credits: 1, reason: 'seed', at: Date.UTC(2026, 1, 28, 23, 59) });

    assert.deepEqual(ledger.periods('a', false), [
      { startDate: '2026-01-01T00:00:00.000Z', endDate: '2026-01-31T23:59:59.999Z', totalCredits: 14 },
      { startDate: '2026-02-01T00:00:00.000Z', endDate: '2026-02-28T23:59:59.999Z', totalCredits: 1 },
      { startDate: '2026-03-01T00:00:00.000Z', endDate: '2026-03-31T23:59:59.999Z', totalCredits: 6 },
    ]);
    const byKey = ledger.periods('a', true);
    assert.equal(byKey.length, 6);
    assert.deepEqual(byKey.filter((p) => p.startDate.startsWith('2026-01')).map((p) => [p.apiKey, p.totalCredits]), [['k1', 10], ['k2', 4]]);
    assert.deepEqual(byKey.filter((p) => p.startDate.startsWith('2026-03')).map((p) => [p.apiKey, p.totalCredits]), [['k1', 0], ['k2', 6]]);
  });

  test('a team without charges has the current month only', () => {
    const { ledger } = setup();
    assert.deepEqual(ledger.periods('b', false), [
      { startDate: '2026-01-01T00:00:00.000Z', endDate: '2026-01-31T23:59:59.999Z', totalCredits: 0 },
    ]);
  });

  test('requireCredits: 402 when the team cannot pay', () => {
    const { ledger, teams } = setup();
    const b = teams.byId('b')!;
    requireCredits(ledger, b, 5);
    assert.throws(() => requireCredits(ledger, b, 6), (err: unknown) => err instanceof HttpError && err.status === 402 && err.code === 'INSUFFICIENT_CREDITS');
    ledger.charge({ teamId: 'b', apiKey: 'key-b', credits: 9, reason: 'crawl' });
    assert.equal(ledger.remaining('b'), 0);
    assert.throws(() => requireCredits(ledger, b), /Insufficient credits/);
  });

  test('monthsBetween crosses years', () => {
    const months = monthsBetween(Date.UTC(2025, 10, 20), Date.UTC(2026, 1, 1));
    assert.deepEqual(months.map((m) => new Date(m.start).toISOString().slice(0, 7)), ['2025-11', '2025-12', '2026-01', '2026-02']);
  });
});
