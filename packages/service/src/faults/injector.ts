// Fault injection per team: from the config file, replaced at runtime with set().
import type { FaultConfig, FaultInjector } from '../core/faults.js';
import type { TeamConfig } from '../core/teams.js';

export class TeamFaultInjector implements FaultInjector {
  private readonly overrides = new Map<string, FaultConfig | undefined>();
  /** Remaining dropped start responses per team, counted down by takeDroppedStartResponse. */
  private readonly dropsLeft = new Map<string, number>();
  /** Eligible requests per team since its faults were set, for the `errorEvery` schedule. */
  private readonly eligibleSeen = new Map<string, number>();

  constructor(
    private readonly teams: { byId(id: string): TeamConfig | undefined },
    /** 0 <= random() < 1; injectable so tests are deterministic. */
    readonly random: () => number = Math.random,
  ) {}

  get(teamId: string): FaultConfig {
    if (this.overrides.has(teamId)) return this.overrides.get(teamId) ?? {};
    return this.teams.byId(teamId)?.faults ?? {};
  }

  set(teamId: string, faults: FaultConfig | undefined): void {
    const before = this.get(teamId);
    this.overrides.set(teamId, faults);
    this.dropsLeft.delete(teamId);
    // The schedule goes on across changes that keep it (a storm added and removed), so a test
    // that toggles other faults still gets every k-th request; a new schedule starts counting again.
    if (before.errorEvery !== faults?.errorEvery || before.errorOffset !== faults?.errorOffset) this.eligibleSeen.delete(teamId);
  }

  /**
   * Called once per eligible request (matching route, no storm): whether it answers an error,
   * by the `errorEvery` schedule or else by the `errorRate` draw.
   */
  errorDue(teamId: string): boolean {
    const faults = this.get(teamId);
    if (faults.errorEvery !== undefined) {
      const n = (this.eligibleSeen.get(teamId) ?? 0) + 1;
      this.eligibleSeen.set(teamId, n);
      if ((n + (faults.errorOffset ?? 0)) % faults.errorEvery === 0) return true;
    }
    return this.chance(faults.errorRate);
  }

  failsKickoff(teamId: string, url: string): boolean {
    const pattern = this.get(teamId).failKickoffPattern;
    if (!pattern) return false;
    try {
      return new RegExp(pattern).test(url);
    } catch {
      return false;
    }
  }

  takeDroppedStartResponse(teamId: string): boolean {
    const left = this.dropsLeft.get(teamId) ?? this.get(teamId).dropNextStartResponses ?? 0;
    if (left <= 0) {
      this.dropsLeft.set(teamId, 0);
      return false;
    }
    this.dropsLeft.set(teamId, left - 1);
    return true;
  }

  /** True with probability `rate`. */
  chance(rate: number | undefined): boolean {
    return rate !== undefined && rate > 0 && this.random() < rate;
  }
}
