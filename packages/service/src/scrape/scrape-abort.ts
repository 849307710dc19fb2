// One scrape's cancellation, shared by its fetch and its conversion: the deadline or the caller's
// cancel, whichever comes first. An EventEmitter with `aborted` and `reason`, which undici takes as
// a request's signal (its types allow one): per page, an AbortController and its signal cost about
// 4 µs to make and each listener on an EventTarget about 1 µs; an emitter and its listeners cost a
// tenth of that.
import { EventEmitter } from 'node:events';

export class ScrapeAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  /** As AbortController.abort: once only, and without a reason an AbortError. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.emit('abort');
  }
}

/** What a fetch or a conversion may be cancelled by: a scrape's ScrapeAbort or a caller's AbortSignal. */
export type Cancellation = AbortSignal | ScrapeAbort;

/** Calls `listener` once when the cancellation fires; returns its removal. */
export function onAbort(signal: Cancellation, listener: () => void): () => void {
  if (signal instanceof ScrapeAbort) {
    signal.once('abort', listener);
    return () => signal.removeListener('abort', listener);
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
