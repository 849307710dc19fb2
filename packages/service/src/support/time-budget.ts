// The support ask time budget (reference 8: 60 s hard limit): one deadline for the whole
// diagnosis; probes take their signal from it and stop when it runs out.

export const SUPPORT_TIME_BUDGET_MS = 60_000;
/** Probes stop this long before the budget ends. */
export const PROBE_MARGIN_MS = 300;

/** The budget's time and timers; tests pass one that moves only when they move it. */
export interface TimeBudgetClock {
  now(): number;
  /** Calls `fn` once `ms` have passed; returns a cancel. */
  after(ms: number, fn: () => void): () => void;
}

export const realClock: TimeBudgetClock = {
  now: () => Date.now(),
  after(ms, fn) {
    // Unref'd like AbortSignal.timeout: a probe's leftover timer never holds the process open.
    const timer = setTimeout(fn, ms).unref();
    return () => clearTimeout(timer);
  },
};

export class TimeBudget {
  private readonly controller = new AbortController();
  private readonly cancelExpiry: () => void;
  readonly startedAt: number;
  readonly deadline: number;
  /** Resolves when the budget runs out (never rejects). */
  readonly expired: Promise<void>;

  constructor(readonly ms: number, outer?: AbortSignal, private readonly clock: TimeBudgetClock = realClock) {
    this.startedAt = clock.now();
    this.deadline = this.startedAt + ms;
    let expire!: () => void;
    this.expired = new Promise<void>((resolve) => {
      expire = resolve;
    });
    this.cancelExpiry = clock.after(ms, () => {
      this.controller.abort(new Error(`support budget of ${ms} ms exhausted`));
      expire();
    });
    outer?.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get exhausted(): boolean {
    return this.controller.signal.aborted;
  }

  remaining(): number {
    return Math.max(0, this.deadline - this.clock.now());
  }

  elapsed(): number {
    return this.clock.now() - this.startedAt;
  }

  /**
   * A signal that aborts after `ms` or shortly before the budget ends, whichever comes
   * first: a probe cut short by it still leaves time to conclude from what it found.
   */
  within(ms: number): AbortSignal {
    const cut = new AbortController();
    this.clock.after(Math.max(1, Math.min(ms, this.remaining() - PROBE_MARGIN_MS)), () => cut.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')));
    return AbortSignal.any([this.signal, cut.signal]);
  }

  dispose(): void {
    this.cancelExpiry();
  }
}
