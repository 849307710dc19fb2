// outputTail: what of a child's output goes into an error message (a runner or Chromium that
// exited early).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { outputTail } from '../src/core/output-tail.js';

describe('outputTail', () => {
  test('drops terminal styling and surrounding blank space', () => {
    const log = '\n  \u001b[2m  - <ws connect error> ws://127.0.0.1:1/devtools connect ECONNREFUSED 127.0.0.1:1\u001b[22m\n';
    assert.equal(outputTail(log), '- <ws connect error> ws://127.0.0.1:1/devtools connect ECONNREFUSED 127.0.0.1:1');
  });

  test('a long output keeps its last whole lines within the limit', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}: ${'x'.repeat(20)}`);
    const tail = outputTail(lines.join('\n'), 100);
    assert.ok(tail.length <= 100, tail);
    assert.ok(tail.split('\n').every((l) => lines.includes(l)), `cut mid-line: ${tail}`);
    assert.ok(tail.endsWith(lines.at(-1) as string));
  });

  test('one long line is cut within the limit, and the cut is marked', () => {
    const tail = outputTail(`start ${'y'.repeat(600)} end`, 50);
    assert.equal(tail, `…${'y'.repeat(45)} end`);
    assert.equal(tail.length, 50);
  });
});
