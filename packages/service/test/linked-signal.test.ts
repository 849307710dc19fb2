import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { linkedSignal } from '../src/http/signals.js';

test('many linked signals on one parent: no MaxListenersExceededWarning, and dispose detaches each', async () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    const parent = new AbortController();
    // 50 requests in flight at once, as under load: more than Node's default limit of 10.
    const linked = Array.from({ length: 50 }, () => linkedSignal(parent.signal));
    assert.equal(getEventListeners(parent.signal, 'abort').length, 50);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), []);
    for (const l of linked) l.dispose();
    assert.equal(getEventListeners(parent.signal, 'abort').length, 0);
  } finally {
    process.off('warning', onWarning);
  }
});

test('a linked signal aborts with its parent, and not after dispose', () => {
  const parent = new AbortController();
  const a = linkedSignal(parent.signal);
  const b = linkedSignal(parent.signal);
  b.dispose();
  parent.abort(new Error('closing'));
  assert.equal(a.signal.aborted, true);
  assert.equal((a.signal.reason as Error).message, 'closing');
  assert.equal(b.signal.aborted, false);
  a.dispose();
});
