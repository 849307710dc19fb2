// The team's recent API activity (last 24 h), newest first, with cursor paging.
import type { ActivityEndpoint, ActivityLog, ActivityRecord } from '../core/activity.js';
import { decodeCursor, encodeCursor } from './cursor.js';

export const ACTIVITY_WINDOW_MS = 24 * 60 * 60 * 1000;

interface Entry extends ActivityRecord {
  seq: number;
}

export class MemoryActivityLog implements ActivityLog {
  private readonly entries: Entry[] = [];
  private seq = 0;

  constructor(private readonly now: () => number) {}

  record(entry: ActivityRecord): void {
    this.entries.push({ ...entry, seq: ++this.seq });
    this.prune();
  }

  list(teamId: string, opts: { endpoint?: ActivityEndpoint; limit: number; cursor?: string }): { data: ActivityRecord[]; cursor: string | null; hasMore: boolean } {
    const before = opts.cursor ? decodeCursor(opts.cursor) : Infinity;
    this.prune();
    const since = this.now() - ACTIVITY_WINDOW_MS;
    const matching: Entry[] = [];
    // Newest first: walk backwards over the append-only list.
    for (let i = this.entries.length - 1; i >= 0 && matching.length <= opts.limit; i--) {
      const e = this.entries[i];
      if (e.seq >= before || e.teamId !== teamId || e.createdAt < since) continue;
      if (opts.endpoint && e.endpoint !== opts.endpoint) continue;
      matching.push(e);
    }
    const hasMore = matching.length > opts.limit;
    const page = matching.slice(0, opts.limit);
    const data = page.map(({ seq: _seq, ...record }) => record);
    return { data, cursor: hasMore ? encodeCursor(page[page.length - 1].seq) : null, hasMore };
  }

  /** Drops records older than the window (records arrive roughly in time order). */
  private prune(): void {
    const since = this.now() - ACTIVITY_WINDOW_MS;
    let drop = 0;
    while (drop < this.entries.length && this.entries[drop].createdAt < since) drop++;
    if (drop > 0) this.entries.splice(0, drop);
  }
}
