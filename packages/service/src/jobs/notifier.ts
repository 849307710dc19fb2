// Lets a status request wait briefly for a running job to change (long poll), so clients
// that follow a running job's `next` do not spin.

export class ChangeNotifier {
  private waiters: Array<() => void> = [];

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves on the next notify(), after `ms`, or when `signal` aborts; never rejects. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      signal?.addEventListener('abort', finish, { once: true });
      this.waiters.push(finish);
    });
  }
}
