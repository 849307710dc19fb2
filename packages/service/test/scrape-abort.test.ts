// A scrape's cancellation (scrape-abort.ts): aborts once, with an AbortError when given no reason,
// calls each listener once, and undici aborts a request on it as on an AbortSignal.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { request } from 'undici';
import { onAbort, ScrapeAbort } from '../src/scrape/scrape-abort.js';

describe('ScrapeAbort', () => {
  it('aborts once, with the first reason', () => {
    const cancel = new ScrapeAbort();
    let calls = 0;
    onAbort(cancel, () => calls++);
    const first = new Error('first');
    cancel.abort(first);
    cancel.abort(new Error('second'));
    assert.equal(cancel.aborted, true);
    assert.equal(cancel.reason, first);
    assert.equal(calls, 1);
  });

  it('gives an AbortError without a reason, as AbortController does', () => {
    const cancel = new ScrapeAbort();
    cancel.abort();
    assert.ok(cancel.reason instanceof DOMException);
    assert.equal((cancel.reason as DOMException).name, 'AbortError');
  });

  it('does not call a listener that was removed, on a ScrapeAbort or an AbortSignal', () => {
    const cancel = new ScrapeAbort();
    const controller = new AbortController();
    let calls = 0;
    onAbort(cancel, () => calls++)();
    onAbort(controller.signal, () => calls++)();
    cancel.abort();
    controller.abort();
    assert.equal(calls, 0);
    assert.equal(cancel.listenerCount('abort'), 0);
  });

  it('aborts an undici request waiting for its answer, with its reason', async () => {
    const server = createServer(() => { /* never answers */ });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const cancel = new ScrapeAbort();
      const reason = new Error('timed out');
      setTimeout(() => cancel.abort(reason), 50);
      const { port } = server.address() as AddressInfo;
      await assert.rejects(request(`http://127.0.0.1:${port}/`, { signal: cancel }), (err) => err === reason);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
