// Pages scraped at once per team: every running job of a team (crawl and batch) shares
// the team's `concurrency`. Waiters are served in arrival order, so jobs take turns.
import type { TeamConfig } from '../core/teams.js';

interface Waiter {
  grant: () => void;
}

interface TeamSlots {
  active: number;
  waiters: Waiter[];
}

export interface SlotLease {
  release(): void;
  /** How long the page waited for a slot, ms (0 when one was free). */
  waitedMs: number;
}

export class TeamLimiter {
  private readonly teams = new Map<string, TeamSlots>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Waits for a slot of the team; rejects with the signal's reason on abort. */
  acquire(team: TeamConfig, signal?: AbortSignal): Promise<SlotLease> {
    signal?.throwIfAborted();
    const slots = this.slotsOf(team.id);
    const capacity = Math.max(1, team.concurrency);
    const started = this.now();
    if (slots.active < capacity && slots.waiters.length === 0) {
      slots.active++;
      return Promise.resolve(this.lease(team, 0));
    }
    return new Promise<SlotLease>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          slots.active++;
          resolve(this.lease(team, this.now() - started));
        },
      };
      const onAbort = () => {
        const i = slots.waiters.indexOf(waiter);
        if (i >= 0) slots.waiters.splice(i, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      slots.waiters.push(waiter);
    });
  }

  /** Slots in use by a team (tests, diagnostics). */
  inUse(teamId: string): number {
    return this.teams.get(teamId)?.active ?? 0;
  }

  private lease(team: TeamConfig, waitedMs: number): SlotLease {
    let released = false;
    return {
      waitedMs,
      release: () => {
        if (released) return;
        released = true;
        const slots = this.slotsOf(team.id);
        slots.active--;
        // The team's concurrency may have changed meanwhile: read it again.
        while (slots.waiters.length > 0 && slots.active < Math.max(1, team.concurrency)) {
          (slots.waiters.shift() as Waiter).grant();
        }
        if (slots.active === 0 && slots.waiters.length === 0) this.teams.delete(team.id);
      },
    };
  }

  private slotsOf(teamId: string): TeamSlots {
    let slots = this.teams.get(teamId);
    if (!slots) {
      slots = { active: 0, waiters: [] };
      this.teams.set(teamId, slots);
    }
    return slots;
  }
}
