// Monitors and their checks, in memory, per service instance. Checks older than the monitor's
// retentionDays are dropped (finished ones only); a deleted monitor is gone with its checks.
import type { CheckRecord, MonitorRecord } from './types.js';

const DAY_MS = 86_400_000;

export class MonitorStore {
  private readonly monitors = new Map<string, MonitorRecord>();
  /** monitorId → checks, oldest first. */
  private readonly checks = new Map<string, CheckRecord[]>();

  constructor(private readonly now: () => number) {}

  put(monitor: MonitorRecord): void {
    this.monitors.set(monitor.id, monitor);
    if (!this.checks.has(monitor.id)) this.checks.set(monitor.id, []);
  }

  /** The team's monitor, or undefined (another team's monitor is not found either). */
  get(teamId: string, id: string): MonitorRecord | undefined {
    const m = this.monitors.get(id);
    return m && m.team.id === teamId ? m : undefined;
  }

  all(): MonitorRecord[] {
    return [...this.monitors.values()];
  }

  byTeam(teamId: string): MonitorRecord[] {
    return this.all().filter((m) => m.team.id === teamId).sort((a, b) => b.createdAt - a.createdAt);
  }

  delete(id: string): void {
    this.monitors.delete(id);
    this.checks.delete(id);
  }

  addCheck(check: CheckRecord): void {
    this.checks.get(check.monitorId)?.push(check);
  }

  /** Checks of a monitor, newest first, after dropping those past retention. */
  checksOf(monitor: MonitorRecord): CheckRecord[] {
    this.sweep(monitor);
    return [...(this.checks.get(monitor.id) ?? [])].reverse();
  }

  check(monitor: MonitorRecord, checkId: string): CheckRecord | undefined {
    return this.checksOf(monitor).find((c) => c.id === checkId);
  }

  sweep(monitor: MonitorRecord): void {
    const list = this.checks.get(monitor.id);
    if (!list) return;
    const cutoff = this.now() - monitor.retentionDays * DAY_MS;
    const kept = list.filter((c) => c.finishedAt === null || c.createdAt >= cutoff);
    if (kept.length !== list.length) this.checks.set(monitor.id, kept);
  }
}
