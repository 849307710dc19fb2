// The output normaliser (normalise.ts): each rule on its own, the directives, and the in-order
// comparison of shown lines with printed ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareOutput, normaliseLine, outputLines } from './normalise.js';

test('what changes from run to run becomes a placeholder', () => {
  assert.equal(normaliseLine('crawl  completed · job 01a1fcb6-c506-772a-b230-eacfc1c7a56c'), 'crawl completed · job <uuid>');
  assert.equal(normaliseLine('run demo-watch-run-2026-11-23T07:56:40Z (completed 2026-11-23T07:56:45.344Z)'), 'run demo-watch-run-<time> (completed <time>)');
  assert.equal(normaliseLine('{"id":"webdata-127.0.0.1-13603-1795710447627"}'), '{"id":"webdata-127.0.0.1-13603-<epoch>"}');
  assert.equal(normaliseLine('43 checks, 768 s; 2.1 ms; 3 min'), '43 checks, <duration>; <duration>; <duration>');
  assert.equal(normaliseLine('store folder /tmp/webdata-store-vjwq9W (from --store)'), 'store folder /tmp/webdata-store-XXXXXX (from --store)');
  assert.equal(normaliseLine('\u001b[32mok\u001b[0m'), 'ok');
});

test("home folders, the shell's own HOME too, are written ~", () => {
  assert.equal(normaliseLine('temporal CLI: /root/.cache/webdata-temporal/temporal [cache]'), 'temporal CLI: ~/.cache/webdata-temporal/temporal [cache]');
  assert.equal(normaliseLine('at /home/ann/.cache/x and /srv/root/x'), 'at ~/.cache/x and /srv/root/x');
  assert.equal(normaliseLine('temporal CLI: /tmp/doc-home-1/.cache/x', { home: '/tmp/doc-home-1' }), 'temporal CLI: ~/.cache/x');
});

test('ephemeral ports vary, ports a page chose stay', () => {
  assert.equal(normaliseLine('on http://127.0.0.1:45757 and http://127.0.0.1:3003'), 'on http://127.0.0.1:<port> and http://127.0.0.1:3003');
  assert.equal(normaliseLine('Temporal 127.0.0.1:17633, [::1]:40000'), 'Temporal 127.0.0.1:17633, [::1]:<port>');
});

test('what stays compared: counts, words, fixed paths', () => {
  assert.equal(normaliseLine('run x: completed · 25 documents · 28 of 200 credits'), 'run x: completed · 25 documents · 28 of 200 credits');
  assert.equal(normaliseLine('0 skipped · /tmp/docs-dev-store'), '0 skipped · /tmp/docs-dev-store');
});

test('numbers vary: every number becomes <n>', () => {
  assert.equal(normaliseLine('map completed · 73 urls · 1 credits', { numbersVary: true }), 'map completed · <n> urls · <n> credits');
});

test('printed lines split at newlines and carriage returns, blank ones dropped', () => {
  assert.deepEqual(outputLines('a\r\nb\rc\n\n  \nd'), ['a', 'b', 'c', 'd']);
});

test('shown lines must appear in order; others may come between', () => {
  const printed = 'started x\nprogress 1\nrun x: completed · 25 documents\n  map  completed\n';
  assert.deepEqual(compareOutput(['started x', 'run x: completed · 25 documents', 'map completed'], printed), { ok: true });
  assert.deepEqual(compareOutput(['run x: completed · 25 documents', 'started x'], printed), { ok: false, missing: 'started x', after: 'run x: completed · 25 documents' });
  assert.deepEqual(compareOutput(['run x: completed · 24 documents'], printed), { ok: false, missing: 'run x: completed · 24 documents', after: undefined });
});

test('a trailing … compares the start of a line; a line of … is left out', () => {
  const printed = '{"url":"http://127.0.0.1:3003/","markdown":"# Demo"}\nmore\n';
  assert.deepEqual(compareOutput(['{"url":"http://127.0.0.1:3003/",…', '…', 'more'], printed), { ok: true });
  assert.deepEqual(compareOutput(['{"url":"http://127.0.0.1:3004/"...'], printed).ok, false);
});

test('with numbers varying, other counts still have to be there', () => {
  assert.deepEqual(compareOutput(['map completed · 70 urls'], 'map  completed · 73 urls', { numbersVary: true }), { ok: true });
  assert.equal(compareOutput(['map completed · 70 pages'], 'map  completed · 73 urls', { numbersVary: true }).ok, false);
});
