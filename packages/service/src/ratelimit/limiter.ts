// Sliding-window rate limits: requests per minute per team and route group.
import type { RouteGroup } from '../core/routes.js';
import type { TeamConfig } from '../core/teams.js';

export const RATE_WINDOW_MS = 60_000;

export type RateDecision =
  | { allowed: true }
  | { allowed: false; retryAfterSec: number; resetsAt: number };

export class RateLimiter {
  /** Timestamps of the admitted requests in the current window, per "team\0group". */
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  /** Admits the request (and counts it) or tells how long to wait. */
  take(team: TeamConfig, group: RouteGroup): RateDecision {
    const limit = team.rateLimits[group];
    if (limit === undefined) return { allowed: true };
    const now = this.now();
    const key = `${team.id}\0${group}`;
    const stamps = (this.windows.get(key) ?? []).filter((t) => t > now - RATE_WINDOW_MS);
    if (stamps.length >= limit) {
      this.windows.set(key, stamps);
      const resetsAt = stamps[stamps.length - limit] + RATE_WINDOW_MS;
      return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((resetsAt - now) / 1000)), resetsAt };
    }
    stamps.push(now);
    this.windows.set(key, stamps);
    return { allowed: true };
  }
}
