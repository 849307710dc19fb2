// Scrape records kept for GET /v2/scrape/{id}, interact replay and support diagnosis;
// each expires after the job TTL and is swept by a timer.
import type { ScrapeRecord, ScrapeRecords } from '../core/scrape.js';

export class MemoryScrapeRecords implements ScrapeRecords {
  private readonly records = new Map<string, ScrapeRecord>();
  private sweeper?: NodeJS.Timeout;

  constructor(private readonly now: () => number, sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  put(record: ScrapeRecord): void {
    this.records.set(record.id, record);
  }

  get(id: string): ScrapeRecord | undefined {
    const record = this.records.get(id);
    if (!record) return undefined;
    if (record.expiresAt <= this.now()) {
      this.records.delete(id);
      return undefined;
    }
    return record;
  }

  /** The team's unexpired records, newest first. */
  byTeam(teamId: string): ScrapeRecord[] {
    const now = this.now();
    return [...this.records.values()]
      .filter((r) => r.teamId === teamId && r.expiresAt > now)
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  sweep(): void {
    const now = this.now();
    for (const [id, record] of this.records) if (record.expiresAt <= now) this.records.delete(id);
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
