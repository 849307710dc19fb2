// An AbortSignal tied to a parent (and optionally a timeout) whose listener is removed again
// when the work is done, so a long-lived parent (the service's close signal) does not collect
// one listener per request.
import { setMaxListeners } from 'node:events';

export interface LinkedSignal {
  signal: AbortSignal;
  /** Aborts the linked signal (with `reason`) if it has not been aborted. */
  abort(reason?: unknown): void;
  /** Detaches from the parent and clears the timer; call when the work ends. */
  dispose(): void;
}

export function linkedSignal(parent: AbortSignal, timeoutMs?: number): LinkedSignal {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(parent.reason);
  let timer: NodeJS.Timeout | undefined;
  // The parent holds one listener per piece of work in flight (dispose removes it), so more
  // than Node's default of 10 is load, not a leak: no MaxListenersExceededWarning for it.
  setMaxListeners(0, parent);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onParentAbort, { once: true });
  if (timeoutMs !== undefined && !controller.signal.aborted) {
    timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    timer.unref();
  }
  return {
    signal: controller.signal,
    abort: (reason) => { if (!controller.signal.aborted) controller.abort(reason); },
    dispose: () => {
      parent.removeEventListener('abort', onParentAbort);
      if (timer) clearTimeout(timer);
    },
  };
}
