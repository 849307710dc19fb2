// One timer per active monitor (croner, unref'd): each tick starts a scheduled check. Pausing,
// deleting or changing the schedule replaces or stops the timer; close() stops them all.
import { Cron } from 'croner';
import type { MonitorRunner } from './runner.js';
import type { MonitorRecord } from './types.js';

export class MonitorScheduler {
  private readonly timers = new Map<string, Cron>();
  private closed = false;

  constructor(
    private readonly runner: MonitorRunner,
    private readonly now: () => number,
    private readonly log: (message: string, err: unknown) => void,
  ) {}

  /** (Re)arms the monitor's timer from its current schedule and status. */
  arm(monitor: MonitorRecord): void {
    this.disarm(monitor.id);
    if (this.closed || monitor.status !== 'active') {
      monitor.nextRunAt = null;
      return;
    }
    const timer = new Cron(monitor.cron, { timezone: monitor.timezone, unref: true, protect: true }, () => {
      try {
        this.runner.start(monitor, 'scheduled', this.now());
      } catch (err) {
        this.log(`monitor ${monitor.id}: scheduled check not started`, err);
      }
      monitor.nextRunAt = timer.nextRun()?.getTime() ?? null;
    });
    monitor.nextRunAt = timer.nextRun()?.getTime() ?? null;
    this.timers.set(monitor.id, timer);
  }

  disarm(monitorId: string): void {
    this.timers.get(monitorId)?.stop();
    this.timers.delete(monitorId);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) timer.stop();
    this.timers.clear();
  }

  /** Monitors with a live timer (tests: none after close). */
  get armed(): number {
    return this.timers.size;
  }
}
