// The support ask time budget (reference 8: 60 s hard limit): one deadline for the whole
// diagnosis; probes take their signal from it and stop when it runs out.

export const SUPPORT_BUDGET_MS = 60_000;
/** Probes stop this long before the budget ends. */
export const PROBE_MARGIN_MS = 300;

export class Budget {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  readonly startedAt = Date.now();
  readonly deadline: number;
  /** Resolves when the budget runs out (never rejects). */
  readonly expired: Promise<void>;

  constructor(readonly ms: number, outer?: AbortSignal) {
    this.deadline = this.startedAt + ms;
    let expire!: () => void;
    this.expired = new Promise<void>((resolve) => {
      expire = resolve;
    });
    this.timer = setTimeout(() => {
      this.controller.abort(new Error(`support budget of ${ms} ms exhausted`));
      expire();
    }, ms);
    outer?.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get exhausted(): boolean {
    return this.controller.signal.aborted;
  }

  remaining(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  elapsed(): number {
    return Date.now() - this.startedAt;
  }

  /**
   * A signal that aborts after `ms` or shortly before the budget ends, whichever comes
   * first: a probe cut short by it still leaves time to conclude from what it found.
   */
  within(ms: number): AbortSignal {
    return AbortSignal.any([this.signal, AbortSignal.timeout(Math.max(1, Math.min(ms, this.remaining() - PROBE_MARGIN_MS)))]);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
